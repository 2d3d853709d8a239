// Package suggest finds the closest of a few known words to a mistyped
// one, for "did you mean" hints in the command line and the config file.
package suggest

// Closest returns the candidate nearest to word by edit distance
// (Levenshtein), or "" when none is near: at most a third of the word's
// length, and at least 1, edits away.
func Closest(word string, candidates []string) string {
	best, bestD := "", max(len(word)/3, 1)+1
	for _, c := range candidates {
		if d := distance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b, by bytes (names here
// are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
