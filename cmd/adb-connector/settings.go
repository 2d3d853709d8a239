package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/adb-connector/adb-connector/device/policy"
)

// Serve's settings have one declaration: the flag. Each flag that
// registerServeFlags adds is also an environment variable and a config
// file key, named from it by one rule (--max-conns-per-ip:
// ADB_CONNECTOR_MAX_CONNS_PER_IP, max_conns_per_ip), and set through the
// flag's own parser whichever way it is given. A flag on the command line
// wins over its variable, which wins over the file, which wins over the
// default.

// settingEnv is the environment variable of serve's flag name.
func settingEnv(name string) string {
	return "ADB_CONNECTOR_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// settingKey is the config file key of serve's flag name.
func settingKey(name string) string { return strings.ReplaceAll(name, "-", "_") }

// notInFile are the flags a config file cannot give: the file's own name.
var notInFile = map[string]bool{"config": true}

// secretEnv names, for a flag naming a file that holds a secret, the
// variable that holds the secret itself: given, it wins over a file named
// by the config file (the command line and the file's own variable
// conflict with it, which loadSecret reports).
var secretEnv = map[string]string{"api-key-file": "ADB_CONNECTOR_API_KEY", "console-token-file": consoleTokenEnv}

// listSettings are the repeatable flags: their variable holds a
// comma-separated list, their key a YAML list or one value.
var listSettings = map[string]bool{"adb": true, "ssh-key": true}

// serveSettingNames are the names of serve's flags, in the order
// registered.
var serveSettingNames = sync.OnceValue(func() []string {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	return registerSettings(fs, func(fs *flag.FlagSet) { registerServeFlagsOnly(fs) })
})

// serveSettingKeys are the config file keys of serve's settings.
func serveSettingKeys() []string {
	var keys []string
	for _, n := range serveSettingNames() {
		if !notInFile[n] {
			keys = append(keys, settingKey(n))
		}
	}
	return keys
}

// registerSettings runs register on fs and returns the names of the flags
// it added; each one's usage gains its variable and key, so --help shows
// all three.
func registerSettings(fs *flag.FlagSet, register func(*flag.FlagSet)) []string {
	before := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { before[f.Name] = true })
	register(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if before[f.Name] {
			return
		}
		names = append(names, f.Name)
		where := "env " + settingEnv(f.Name)
		if listSettings[f.Name] {
			where += ", comma-separated"
		}
		if !notInFile[f.Name] {
			where += "; config " + settingKey(f.Name)
		}
		f.Usage += " [" + where + "]"
	})
	return names
}

// applyEnv sets each of names not given on the command line from its
// variable, when set. It reports every bad value.
func applyEnv(fs *flag.FlagSet, names []string, given map[string]bool) error {
	var errs []error
	for _, n := range names {
		v, ok := os.LookupEnv(settingEnv(n))
		if given[n] || !ok || v == "" {
			continue
		}
		vals := []string{v}
		if listSettings[n] {
			vals = strings.Split(v, ",")
		}
		for _, x := range vals {
			if err := fs.Set(n, strings.TrimSpace(x)); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %s", settingEnv(n), v, valueMistake(fs.Lookup(n), err)))
				break
			}
		}
		given[n] = true
	}
	return errors.Join(errs...)
}

// applyFile sets each of names that neither the command line nor a
// variable gave from the config file's settings. Each bad value is a
// *policy.Error with its line.
func applyFile(fs *flag.FlagSet, names []string, given map[string]bool, file map[string]policy.Setting) error {
	var errs []error
	for _, n := range names {
		s, ok := file[settingKey(n)]
		if !ok || given[n] || notInFile[n] || os.Getenv(secretEnv[n]) != "" && secretEnv[n] != "" {
			continue
		}
		if len(s.Values) > 1 && !listSettings[n] {
			errs = append(errs, &policy.Error{Path: settingKey(n), Line: s.Line, Msg: "takes one value, not a list"})
			continue
		}
		for _, v := range s.Values {
			if err := fs.Set(n, v); err != nil {
				errs = append(errs, &policy.Error{Path: settingKey(n), Line: s.Line, Msg: fmt.Sprintf("%q: %s", v, valueMistake(fs.Lookup(n), err))})
				break
			}
		}
	}
	return errors.Join(errs...)
}

// settingsLines sorts joined *policy.Error values by line, so that a
// file's mistakes read top to bottom whichever check found them.
func settingsLines(errs ...error) error {
	var all []*policy.Error
	var other []error
	for _, err := range errs {
		if err == nil {
			continue
		}
		j, ok := err.(interface{ Unwrap() []error })
		list := []error{err}
		if ok {
			list = j.Unwrap()
		}
		for _, e := range list {
			var pe *policy.Error
			if errors.As(e, &pe) {
				all = append(all, pe)
			} else {
				other = append(other, e)
			}
		}
	}
	slices.SortStableFunc(all, func(a, b *policy.Error) int { return a.Line - b.Line })
	for _, e := range all {
		other = append(other, e)
	}
	return errors.Join(other...)
}
