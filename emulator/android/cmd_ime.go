package android

import (
	"encoding/base64"
	"slices"
	"strconv"
)

// The ADB Keyboard IME (package com.android.adbkeyboard) is how labs type
// non-ASCII text: select it with `ime set`, then send broadcasts
// (`am broadcast -a ADB_INPUT_TEXT --es msg TEXT`, ADB_INPUT_B64,
// ADB_INPUT_CODE --ei code N, ADB_CLEAR_TEXT). It only works when the
// scenario installs the package and it is the selected input method.
const (
	latinIME = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
	adbIME   = "com.android.adbkeyboard/.AdbIME"
)

// imeList returns the installed input method ids (d.mu held or immutable).
func (d *Device) imeList() []string {
	ids := []string{latinIME}
	if _, ok := d.sc.app("com.android.adbkeyboard"); ok {
		ids = append(ids, adbIME)
	}
	return ids
}

// cmdIme: `ime list [-s] [-a]`, `ime enable ID`, `ime set ID`.
func cmdIme(c *cmdCtx) int {
	if len(c.args) < 2 {
		c.errorf("usage: ime list [-a] [-s]\n       ime enable ID\n       ime set ID\n")
		return 1
	}
	d := c.d
	ids := d.imeList()
	switch c.args[1] {
	case "list":
		for _, id := range ids {
			c.printf("%s\n", id)
		}
		return 0
	case "enable", "set":
		if len(c.args) < 3 {
			c.errorf("Error: no input method id\n")
			return 255
		}
		id := c.args[2]
		if !slices.Contains(ids, id) {
			c.printf("Unknown input method %s cannot be %s for user #0\n", id, map[string]string{"set": "selected", "enable": "enabled"}[c.args[1]])
			return 255
		}
		if c.args[1] == "enable" {
			c.printf("Input method %s: already enabled for user #0\n", id)
			return 0
		}
		d.mu.Lock()
		d.st.settings["secure/default_input_method"] = id
		d.mu.Unlock()
		c.printf("Input method %s selected for user #0\n", id)
		return 0
	}
	c.errorf("Unknown command: %s\n", c.args[1])
	return 255
}

// amBroadcast handles `am broadcast -a ACTION [--es k v] [--ei k n]`.
func amBroadcast(c *cmdCtx) int {
	var action string
	extras := map[string]string{}
	args := c.args[2:]
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-a":
			if i+1 < len(args) {
				action = args[i+1]
				i++
			}
		case "--es", "--ei", "-e":
			if i+2 < len(args) {
				extras[args[i+1]] = args[i+2]
				i += 2
			}
		}
	}
	flags := "flg=0x400000"
	if len(extras) > 0 {
		flags += " (has extras)"
	}
	c.printf("Broadcasting: Intent { act=%s %s }\n", action, flags)
	d := c.d
	d.mu.Lock()
	if d.st.settings["secure/default_input_method"] == adbIME {
		switch action {
		case "ADB_INPUT_TEXT":
			d.typeLocked(extras["msg"])
		case "ADB_INPUT_B64":
			if b, err := base64.StdEncoding.DecodeString(extras["msg"]); err == nil {
				d.typeLocked(string(b))
			}
		case "ADB_INPUT_CODE":
			if n, err := strconv.Atoi(extras["code"]); err == nil {
				d.keyLocked(n)
			}
		case "ADB_CLEAR_TEXT":
			if d.st.focus != "" {
				d.st.fields[d.st.focus] = ""
				d.changed()
			}
		}
	}
	d.mu.Unlock()
	c.printf("Broadcast completed: result=0\n")
	return 0
}
