package testkit

import (
	"errors"
	"testing"
)

// OneWinner checks the errors of racing calls: exactly one nil (the
// winner), every other one lose.
func OneWinner(t testing.TB, race string, errs []error, lose error) {
	t.Helper()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, lose):
			t.Fatalf("%s: unexpected error %v", race, err)
		}
	}
	if won != 1 {
		t.Fatalf("%s: %d winners, want exactly 1", race, won)
	}
}
