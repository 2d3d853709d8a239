// Package archtest holds no code: its test checks the architecture rules of
// DESIGN.md and STYLE.md habits 1 and 4 over the import graph of the whole
// module, so a stray import fails `make test` instead of waiting for review.
package archtest
