// Package archtest holds no code: its test checks the layering rules
// (one-way dependencies, third-party edges wrapped once) over the import
// graph of the whole module, so a stray import fails `make test` instead of waiting for review.
package archtest
