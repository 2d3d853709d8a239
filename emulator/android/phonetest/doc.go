// Package phonetest holds the tests of the whole virtual phone: command
// lines run through android.Device's public API, their outputs compared
// with what real phones print (golden files, parsers' fixtures, flows
// across several commands). A room's own tests stay with the room.
package phonetest
