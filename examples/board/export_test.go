package board

import "golang.org/x/crypto/bcrypt"

// Tests hash passwords at the lowest cost: every test seeds a new board.
func init() { bcryptCost = bcrypt.MinCost }
