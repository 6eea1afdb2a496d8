package aal_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/affordances/affordances-go/aal"
)

func TestVisible(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain text unchanged", "Place order", "Place order"},
		{"empty", "", ""},
		{"letters of other scripts and emoji unchanged", "Zählé 注文 مرحبا 🛒", "Zählé 注文 مرحبا 🛒"},
		{"replacement character written as such", "\uFFFD", "\uFFFD"},
		{"zero width space", "Pay\u200b now", `Pay\u200b now`},
		{"right-to-left override", "\u202eredro", `\u202eredro`},
		{"newline and tab", "a\nb\tc", `a\u000ab\u0009c`},
		{"NUL", "a\x00", `a\u0000`},
		{"DEL", "a\x7f", `a\u007f`},
		{"C1 next line", "a\u0085", `a\u0085`},
		{"emoji with a zero width joiner", "👩\u200d💻", `👩\u200d💻`},
		{"emoji with a variation selector", "❤\ufe0f", `❤\ufe0f`},
		{"variation selector above the BMP", "a\U000E0100", `a\U000e0100`},
		{"Mongolian free variation selector", "a\u180b", `a\u180b`},
		{"tag characters", "a\U000E0001\U000E0041\U000E007F", `a\U000e0001\U000e0041\U000e007f`},
		{"unassigned tag", "a\U000E0002", `a\U000e0002`},
		{"line and paragraph separators", "a\u2028b\u2029", `a\u2028b\u2029`},
		{"other format characters", "a\ufff9b\u206ac\U0001D173", `a\ufff9b\u206ac\U0001d173`},
		{"backslash", `C:\orders`, `C:\\orders`},
		{"a faked escape", `Pay\u200b`, `Pay\\u200b`},
		{"invalid UTF-8", "a\xffb", `a\xffb`},
		{"truncated sequence", "a\xe2\x80", `a\xe2\x80`},
		{"encoded surrogate", "\xed\xa0\x80", `\xed\xa0\x80`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := aal.Visible(tc.in); got != tc.want {
				t.Errorf("Visible(%+q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestVisibleListed checks every character docs/protocol.md decision 7 lists, and
// every control character.
func TestVisibleListed(t *testing.T) {
	chars := append([]rune{}, listedCharacters...)
	for r := rune(0); r < 0x20; r++ {
		chars = append(chars, r)
	}
	for r := rune(0x7F); r <= 0x9F; r++ {
		chars = append(chars, r)
	}
	for _, r := range chars {
		want := fmt.Sprintf(`x\u%04xy`, r)
		if r > 0xFFFF {
			want = fmt.Sprintf(`x\U%08xy`, r)
		}
		if got := aal.Visible("x" + string(r) + "y"); got != want {
			t.Errorf("Visible with %U = %q, want %q", r, got, want)
		}
	}
}

// FuzzVisible checks that Visible's output shows nothing hidden and is
// valid UTF-8, and that it can be read back to its input, so that two
// different texts never look the same.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"Place order", "Pay\u200b now", `\u200b`, "a\xffb", "👩\u200d💻", "\U000E0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := aal.Visible(s)
		if !utf8.ValidString(v) {
			t.Fatalf("Visible(%+q) = %+q, not valid UTF-8", s, v)
		}
		if aal.Visible(v) != strings.ReplaceAll(v, `\`, `\\`) {
			t.Fatalf("Visible(%+q) = %+q still hides something", s, v)
		}
		if back := unescape(t, v); back != s {
			t.Fatalf("Visible(%+q) = %+q reads back as %+q", s, v, back)
		}
	})
}

// unescape reads Visible's escapes back.
func unescape(t *testing.T, v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			b.WriteByte(v[i])
			continue
		}
		i++
		n := map[byte]int{'\\': 0, 'x': 2, 'u': 4, 'U': 8}[v[i]]
		if v[i] == '\\' {
			b.WriteByte('\\')
			continue
		}
		x, err := strconv.ParseUint(v[i+1:i+1+n], 16, 32)
		if err != nil {
			t.Fatalf("bad escape in %q: %v", v, err)
		}
		if v[i] == 'x' {
			b.WriteByte(byte(x))
		} else {
			b.WriteRune(rune(x))
		}
		i += n
	}
	return b.String()
}
