package aal

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// listed holds the invisible and direction characters that docs/protocol.md decision 7
// refuses in a label or a selector, with their Unicode names.
var listed = map[rune]string{
	0x00AD: "SOFT HYPHEN",
	0x034F: "COMBINING GRAPHEME JOINER",
	0x061C: "ARABIC LETTER MARK",
	0x115F: "HANGUL CHOSEONG FILLER",
	0x1160: "HANGUL JUNGSEONG FILLER",
	0x17B4: "KHMER VOWEL INHERENT AQ",
	0x17B5: "KHMER VOWEL INHERENT AA",
	0x180E: "MONGOLIAN VOWEL SEPARATOR",
	0x200B: "ZERO WIDTH SPACE",
	0x200C: "ZERO WIDTH NON-JOINER",
	0x200D: "ZERO WIDTH JOINER",
	0x200E: "LEFT-TO-RIGHT MARK",
	0x200F: "RIGHT-TO-LEFT MARK",
	0x202A: "LEFT-TO-RIGHT EMBEDDING",
	0x202B: "RIGHT-TO-LEFT EMBEDDING",
	0x202C: "POP DIRECTIONAL FORMATTING",
	0x202D: "LEFT-TO-RIGHT OVERRIDE",
	0x202E: "RIGHT-TO-LEFT OVERRIDE",
	0x2060: "WORD JOINER",
	0x2061: "FUNCTION APPLICATION",
	0x2062: "INVISIBLE TIMES",
	0x2063: "INVISIBLE SEPARATOR",
	0x2064: "INVISIBLE PLUS",
	0x2066: "LEFT-TO-RIGHT ISOLATE",
	0x2067: "RIGHT-TO-LEFT ISOLATE",
	0x2068: "FIRST STRONG ISOLATE",
	0x2069: "POP DIRECTIONAL ISOLATE",
	0x206A: "INHIBIT SYMMETRIC SWAPPING",
	0x206B: "ACTIVATE SYMMETRIC SWAPPING",
	0x206C: "INHIBIT ARABIC FORM SHAPING",
	0x206D: "ACTIVATE ARABIC FORM SHAPING",
	0x206E: "NATIONAL DIGIT SHAPES",
	0x206F: "NOMINAL DIGIT SHAPES",
	0x3164: "HANGUL FILLER",
	0xFEFF: "ZERO WIDTH NO-BREAK SPACE",
	0xFFA0: "HALFWIDTH HANGUL FILLER",
}

// c0Names are the Unicode name aliases of the C0 control characters.
var c0Names = [32]string{
	"NULL", "START OF HEADING", "START OF TEXT", "END OF TEXT",
	"END OF TRANSMISSION", "ENQUIRY", "ACKNOWLEDGE", "ALERT",
	"BACKSPACE", "CHARACTER TABULATION", "LINE FEED", "LINE TABULATION",
	"FORM FEED", "CARRIAGE RETURN", "SHIFT OUT", "SHIFT IN",
	"DATA LINK ESCAPE", "DEVICE CONTROL ONE", "DEVICE CONTROL TWO", "DEVICE CONTROL THREE",
	"DEVICE CONTROL FOUR", "NEGATIVE ACKNOWLEDGE", "SYNCHRONOUS IDLE", "END OF TRANSMISSION BLOCK",
	"CANCEL", "END OF MEDIUM", "SUBSTITUTE", "ESCAPE",
	"INFORMATION SEPARATOR FOUR", "INFORMATION SEPARATOR THREE", "INFORMATION SEPARATOR TWO", "INFORMATION SEPARATOR ONE",
}

// isControl reports whether r is a C0 or C1 control character or DEL.
func isControl(r rune) bool { return r < 0x20 || (r >= 0x7F && r <= 0x9F) }

// isTag reports whether r is a tag character, U+E0000 to U+E007F.
func isTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// refused reports whether docs/protocol.md decision 7 refuses r in a label or a
// selector: a C0 or C1 control character, DEL, a listed invisible or
// direction character, or a tag character.
func refused(r rune) bool {
	if isControl(r) || isTag(r) {
		return true
	}
	_, ok := listed[r]
	return ok
}

// describe names a refused character for a person: "an invisible character
// U+200B (ZERO WIDTH SPACE)", "a control character U+0007 (ALERT)".
func describe(r rune) string {
	switch {
	case r < 0x20:
		return fmt.Sprintf("a control character U+%04X (%s)", r, c0Names[r])
	case r == 0x7F:
		return "a control character U+007F (DELETE)"
	case isControl(r):
		return fmt.Sprintf("a C1 control character U+%04X", r)
	}
	if name, ok := listed[r]; ok {
		return fmt.Sprintf("an invisible character U+%04X (%s)", r, name)
	}
	if isTag(r) {
		return fmt.Sprintf("an invisible tag character U+%04X", r)
	}
	return fmt.Sprintf("the character U+%04X", r)
}

// hidden reports whether [Visible] escapes r.
func hidden(r rune) bool {
	switch {
	case refused(r),
		unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Variation_Selector):
		return true
	}
	return false
}

// Visible returns s as it should be shown to a person: verbatim, except that
// every character a person could not see becomes a visible escape. Text a
// site wrote (an id, a label, a message) is untrusted; show it through
// Visible so that nothing in it is hidden (docs/protocol.md decision 8).
//
// Escaped are the C0 and C1 control characters and DEL, the invisible and
// direction characters of docs/protocol.md decision 7, every other format character
// (Unicode category Cf), the line and paragraph separators (Zl, Zp), the
// variation selectors and the tag characters U+E0000 to U+E007F. A
// character of the Basic Multilingual Plane is written \u200b (four
// lowercase hexadecimal digits), one above it \U000e0041 (eight). A byte
// that is not part of valid UTF-8 is written \xff. A backslash is written
// \\, so that text cannot fake an escape. Everything else, emoji and
// letters of every script included, is unchanged.
//
// Visible is safe for concurrent use.
func Visible(s string) string {
	clean := true
	for i, r := range s {
		if r == '\\' || hidden(r) || (r == utf8.RuneError && !validAt(s, i)) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case hidden(r) && r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// validAt reports whether the rune at byte i of s is valid UTF-8 (a
// U+FFFD written as such, not an invalid byte).
func validAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size > 1
}

// quote renders untrusted text inside a message: visible, quoted, and cut
// to at most 40 characters.
func quote(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) > max {
		n := 0
		for i := range s {
			if n == max {
				s = s[:i] + "…"
				break
			}
			n++
		}
	}
	return `"` + strings.ReplaceAll(Visible(s), `"`, `\"`) + `"`
}

// The scripts a label word may not mix (docs/protocol.md decision 7): letters of the
// Basic Multilingual Plane only, as the schema's pattern lists them.
const (
	scriptOther = iota
	scriptLatin
	scriptCyrillicGreek
)

// scriptOf says whether r is a Latin letter, a Cyrillic or Greek one, or
// neither.
func scriptOf(r rune) int {
	switch {
	case r > 0xFFFF || !unicode.IsLetter(r):
		return scriptOther
	case unicode.Is(unicode.Latin, r):
		return scriptLatin
	case unicode.In(r, unicode.Cyrillic, unicode.Greek):
		return scriptCyrillicGreek
	}
	return scriptOther
}

// isWordMark reports whether r is a combining mark that stays inside a
// word: the combining diacritical marks and the Cyrillic ones.
func isWordMark(r rune) bool { return (r >= 0x0300 && r <= 0x036F) || (r >= 0x0483 && r <= 0x0489) }

// mixedWord finds the first word of s (a run of Latin, Cyrillic and Greek
// letters and combining marks) that mixes Latin letters with Cyrillic or
// Greek ones, homoglyph cloaking ("Pаy" with a Cyrillic а). It returns the
// word, the position (in characters from 1) of the word's first letter of
// the script its first letter is not, and that letter; ok is false when no
// word mixes them.
func mixedWord(s string) (word string, pos int, odd rune, ok bool) {
	start, first, n := -1, scriptOther, 0
	for i, r := range s {
		n++
		sc := scriptOf(r)
		if sc == scriptOther && !isWordMark(r) {
			start, first = -1, scriptOther
			continue
		}
		if start < 0 {
			start = i
		}
		switch {
		case sc == scriptOther:
		case first == scriptOther:
			first = sc
		case sc != first:
			end := len(s)
			for j, r := range s[i:] {
				if scriptOf(r) == scriptOther && !isWordMark(r) {
					end = i + j
					break
				}
			}
			return s[start:end], n, r, true
		}
	}
	return "", 0, 0, false
}
