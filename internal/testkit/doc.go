// Package testkit holds small helpers shared by the tests of several
// packages (and by test-support packages such as adb/adbtest): code that
// would otherwise be copied into each package's _test files.
//
// It is imported only from tests and test-support packages, never from
// production code.
package testkit
