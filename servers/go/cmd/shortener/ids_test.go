package main

import (
	"strings"
	"testing"
)

// nextID is the article's generator written out as a test oracle: step the
// last character, carry to the left, and grow by one 'a' after a full wrap.
func nextID(t *testing.T, id string) string {
	t.Helper()
	b := []byte(id)
	for i := len(b) - 1; i >= 0; i-- {
		pos := strings.IndexByte(alphabet, b[i])
		if pos < 0 {
			t.Fatalf("nextID(%q): %q is not in the alphabet", id, b[i])
		}
		if pos < len(alphabet)-1 {
			b[i] = alphabet[pos+1]
			return string(b)
		}
		b[i] = alphabet[0]
	}
	return "a" + string(b)
}

func TestIDFor(t *testing.T) {
	const size = uint64(len(alphabet))
	tests := []struct {
		n    uint64
		want string
	}{
		{0, "aaaa"}, // the article's first id: wrk ... /api/v1/url/aaaa
		{1, "aaab"},
		{size - 1, "aaa9"},
		{size, "aaba"},
		{size*size*size*size - 1, "9999"},
		{size * size * size * size, "aaaaa"},
		{size*size*size*size + size*size*size*size*size, "aaaaaa"},
	}
	for _, tt := range tests {
		if got := idFor(tt.n); got != tt.want {
			t.Errorf("idFor(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestIDForFollowsTheArticlesGenerator checks that the counter-derived ids are
// exactly the sequence the author's successor function produces, including
// the carries and the growth from 4 to 5 characters.
func TestIDForFollowsTheArticlesGenerator(t *testing.T) {
	const size = uint64(len(alphabet))
	starts := []uint64{0, size*size - 5, size*size*size*size - 5}
	for _, start := range starts {
		prev := idFor(start)
		for n := start + 1; n < start+200; n++ {
			got := idFor(n)
			if want := nextID(t, prev); got != want {
				t.Fatalf("idFor(%d) = %q, but the article's generator follows %q with %q", n, got, prev, want)
			}
			prev = got
		}
	}
}
