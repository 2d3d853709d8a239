package phonefw

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/internal/helperjar"
)

// Spec is one app_process run of a helper jar.
type Spec struct {
	// Jar is the jar as pushed to the phone (a zip holding classes.dex).
	Jar []byte
	// Main is the class app_process was told to run.
	Main string
	// SDK selects the fake framework's level (MinSDK or later).
	SDK int
	// Env is the VM's environment as the phone's shell gave it (CLASSPATH).
	Env []string
	// Stdin, Stdout and Stderr are the process's standard streams.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Phone is what the framework reports and acts on.
	Phone Phone
}

// Run translates the jar, starts it on the host JVM with the fake
// framework for s.SDK bound to s.Phone, and waits for it to exit (or ctx
// to end, which kills it). It returns the VM's exit status; an error
// (ErrNoTools, ErrSDK, a jar without classes.dex) when it could not start.
func Run(ctx context.Context, s Spec) (int, error) {
	dex, err := helperjar.ClassesDex(s.Jar)
	if err != nil {
		return 0, err
	}
	fw, err := Framework(ctx, s.SDK)
	if err != nil {
		return 0, err
	}
	jar, err := Translate(ctx, dex)
	if err != nil {
		return 0, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	ses := &session{p: s.Phone}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		stop := context.AfterFunc(ctx, func() { c.Close() })
		defer stop()
		ses.serve(ctx, c)
	}()
	defer func() {
		ln.Close()
		wg.Wait()
		if ses.connected {
			s.Phone.Disconnect()
		}
	}()

	cmd := exec.CommandContext(ctx, "java",
		// A short-lived VM: no JIT tiers beyond C1, one GC thread, no GUI.
		"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-Djava.awt.headless=true",
		"-Dphonefw.addr="+ln.Addr().String(), "-cp", jar+string(os.PathListSeparator)+fw, s.Main)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()}, s.Env...)
	cmd.Stdout, cmd.Stderr = s.Stdout, s.Stderr
	cmd.WaitDelay = 2 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("phonefw: start java: %w", err)
	}
	// The caller's stdin may block past the VM's exit (a stream that
	// stays open): copy it without making Wait wait for it.
	go func() {
		if s.Stdin != nil {
			io.Copy(in, s.Stdin)
		}
		in.Close()
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode(), nil
	case ctx.Err() != nil:
		return 0, ctx.Err()
	}
	return 0, err
}
