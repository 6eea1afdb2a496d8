package wirejson

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

type (
	planLine struct {
		SKU      string `json:"sku"`
		Quantity int    `json:"quantity,omitempty"`
		Gift     bool   `json:"gift,omitempty"`
		Note     *string
		Tags     []string          `json:"tags,omitempty"`
		Attrs    map[string]uint16 `json:"attrs"`
		Grid     [2]int8           `json:"grid"`
		hidden   string
		Skipped  string `json:"-"`
		//lint:ignore SA5008 "-," names a field "-", as encoding/json documents: the case is tested
		Dash  string    `json:"-,"`
		Count uint64    `json:",omitempty"`
		Label planLabel `json:"label,omitempty"`
		Level int8      `json:"level,omitempty"`
	}
	planCart struct {
		Lines []planLine           `json:"lines"`
		ByKey map[string]*planLine `json:"byKey,omitempty"`
		Total int64                `json:"total"`
		Empty struct{}             `json:"empty,omitempty"`
	}
	planLabel string
	planNode  struct {
		Name string    `json:"name"`
		Next *planNode `json:"next"`
	}
	planEmbedded struct {
		planLine
		Extra string `json:"extra"`
	}
	planDup struct {
		A string `json:"X"`
		X string // the tagged A wins
	}
	planOddName struct {
		A string `json:"a b"`
		B string `json:"é"`
	}
	planStringOpt struct {
		N int `json:"n,string"`
	}
	planOmitZero struct {
		T time.Time `json:"t,omitzero"`
		N int       `json:"n,omitzero"`
	}
	planFloat struct {
		F float64 `json:"f"`
	}
	planAny struct {
		V any `json:"v"`
	}
	planBytes struct {
		B []byte `json:"b"`
	}
	planText struct {
		K map[planKey]int `json:"k"`
	}
	planKey    string
	planMarsh  struct{ X int }
	planPtrMar struct{ X int }
	planNumber struct {
		N json.Number `json:"n"`
	}
)

func (planKey) MarshalText() ([]byte, error)     { return []byte("key"), nil }
func (planMarsh) MarshalJSON() ([]byte, error)   { return []byte(`"m"`), nil }
func (*planPtrMar) MarshalJSON() ([]byte, error) { return []byte(`"p"`), nil }

// TestPlanMatchesMarshal: AppendValue writes what json.Marshal writes for
// values with a plan and for those without (encoding/json's own), HTML
// characters, omitempty, nil slices, maps and pointers, and rules the plans
// leave to encoding/json included.
func TestPlanMatchesMarshal(t *testing.T) {
	note := "wrap <it> & \u2028 \xff"
	line := planLine{SKU: "a&b", Quantity: 2, Gift: true, Note: &note, Tags: []string{"x", "<y>"}, Attrs: map[string]uint16{"z": 1, "a": 65535, "é": 3}, Grid: [2]int8{-128, 127}, hidden: "h", Skipped: "s", Dash: "d", Count: math.MaxUint64, Label: "<l>"}
	values := []any{
		line, &line, planLine{}, []planLine{line, {}}, []planLine(nil), []planLine{},
		planCart{Lines: []planLine{line}, ByKey: map[string]*planLine{"b": &line, "a": nil}, Total: -7},
		planCart{}, map[string][]int{"b": {1}, "a": nil}, map[string]int(nil), [0]string{},
		planLabel("<l>"), []planLabel{"a"}, int8(-3), uint32(7), (*planLine)(nil),
		planNode{Name: "a", Next: &planNode{Name: "b"}},
		planEmbedded{planLine: line, Extra: "e"}, planDup{"1", "2"}, planOddName{"1", "2"},
		planStringOpt{5}, planOmitZero{N: 1}, planOmitZero{}, planFloat{1e21}, planFloat{0.1},
		planAny{map[string]any{"x": 1.5}}, planAny{}, planBytes{[]byte("hi")}, planText{map[planKey]int{"a": 1}},
		planMarsh{}, []planMarsh{{}}, planPtrMar{}, []planPtrMar{{}}, map[string]planPtrMar{"a": {}},
		planNumber{"12.50"}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), json.RawMessage(`{"a":1}`),
		[]byte("bytes"), [3]byte{1, 2, 3}, uint8(9), []uint8(nil), 3.25, []float32{1.5},
	}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendValue(nil, v)
		if err != nil {
			t.Errorf("%T: %v", v, err)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("%T:\n got %s\nwant %s", v, got, want)
		}
	}
	// The plans in force: plain data has one, the rest does not.
	for _, v := range []any{line, planCart{}, planLabel(""), map[string][]int{}} {
		if planOf(reflect.TypeOf(v)) == nil {
			t.Errorf("%T has no plan", v)
		}
	}
	for _, v := range []any{planNode{}, planEmbedded{}, planDup{}, planOddName{}, planStringOpt{}, planOmitZero{}, planFloat{}, planAny{}, planBytes{}, planText{}, planMarsh{}, planPtrMar{}, planNumber{}, time.Time{}} {
		if planOf(reflect.TypeOf(v)) != nil {
			t.Errorf("%T has a plan: encoding/json's rules for it are its own", v)
		}
	}
}

// FuzzPlanMatchesMarshal: for any strings and numbers, a planned struct is
// written as json.Marshal writes it.
func FuzzPlanMatchesMarshal(f *testing.F) {
	f.Add("a", "<b>&", int64(0), uint64(1), true, 2)
	f.Add("", "\xff\u2028\x00", int64(math.MinInt64), uint64(math.MaxUint64), false, 0)
	f.Fuzz(func(t *testing.T, s1, s2 string, i int64, u uint64, b bool, n int) {
		n = n % 5
		if n < 0 {
			n = -n
		}
		cart := planCart{Total: i, ByKey: map[string]*planLine{}}
		for k := range n {
			l := planLine{SKU: s1, Quantity: int(i) + k, Gift: b, Count: u, Tags: []string{s2}, Attrs: map[string]uint16{s1: uint16(u), s2: uint16(k)}, Label: planLabel(s2), Level: int8(i) + int8(k)}
			if k%2 == 1 {
				l.Note = &s2
			}
			cart.Lines = append(cart.Lines, l)
			cart.ByKey[s2+s1[:min(k, len(s1))]] = &l
		}
		want, err := json.Marshal(cart)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendValue(nil, cart)
		if err != nil || string(got) != string(want) {
			t.Fatalf("got %s, %v\nwant %s", got, err, want)
		}
	})
}
