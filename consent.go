package affordances

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// A person's confirmation of a confirm call covers its input and the state
// they were shown ([Action.Consent]): "1 × Canvas Tote, total $18.00, ship
// to Alice Example, 1 Main St, Springfield". It is bound to that state by
// a digest of its values, taken when the summary is written (the
// confirmation page, the approval page) and compared before the action
// runs and, by [Request.Consented], where it writes.

// FormConsentField carries the digest of the state confirmed ([Action.Consent]).
const FormConsentField = "_consent"

// errConsentChanged is the error [Request.Consented] returns when what the
// person confirmed is not what the action is about to do.
var errConsentChanged = libError(ConfirmRequired, phrase("What was confirmed changed before it ran, so nothing ran."))

// consentDigest returns the digest of the values keys name in entities
// (null for one that is absent), each in canonical JSON, or "" when keys
// is empty.
func consentDigest(keys []string, entities map[string]any) (string, error) {
	if len(keys) == 0 {
		return "", nil
	}
	h := sha256.New()
	for _, k := range keys {
		b, err := json.Marshal(entities[k])
		if err != nil {
			return "", fmt.Errorf("affordances: the entity %q of Consent: %w", k, err)
		}
		b = canonicalJSON(b)
		fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(b), b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// canonicalJSON returns b, which is JSON, with object keys sorted and no
// spaces, numbers as written: one encoding for one value, however it was
// written. b is returned as it is when it does not decode.
func canonicalJSON(b []byte) []byte {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return b
	}
	if out, err := json.Marshal(v); err == nil {
		return out
	}
	return b
}

// Consented checks, inside the transaction where the action writes, that
// entities (the state it is about to act on) still hold what the person
// confirmed of its [Action.Consent]; if not, the action must return the
// error, undoing what it wrote. Nil without a confirmation or a Consent.
func (r *Request) Consented(entities map[string]any) error {
	if r.consent == "" {
		return nil
	}
	r.consentChecked = true
	got, err := consentDigest(r.consentKeys, entities)
	if err != nil {
		return err
	}
	if got != r.consent {
		return errConsentChanged
	}
	return nil
}
