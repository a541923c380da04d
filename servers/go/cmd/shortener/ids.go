package main

// alphabet is the character set of the author's id generator (Quard/gosh,
// internal/generator): letters and digits without the look-alikes l, O and 0.
const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHIJKLMNPQRSTUVWXYZ123456789"

// minIDLen is the length of the first id the author hands out, "aaaa".
const minIDLen = 4

// idFor returns the n-th id (n counts from 0) of the author's sequence.
//
// The author computes each id from the previous one like an odometer: the last
// character steps through the alphabet and carries to the left, and when every
// position wraps back to 'a' the id grows by one character ("9999" is followed
// by "aaaaa"). That sequence is every 4-character base-59 number in order, then
// every 5-character one, and so on, so the n-th id can be computed from an
// integer counter directly. Storing the counter rather than the last id string
// makes allocation explicit: Redis INCR, or a uint64 in a bolt bucket.
func idFor(n uint64) string {
	size := uint64(len(alphabet))
	length := minIDLen
	// block is how many ids of the current length exist: size^length.
	block := size * size * size * size
	for n >= block {
		n -= block
		length++
		block *= size
	}
	id := make([]byte, length)
	for i := length - 1; i >= 0; i-- {
		id[i] = alphabet[n%size]
		n /= size
	}
	return string(id)
}
