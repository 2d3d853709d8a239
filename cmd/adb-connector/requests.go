package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/operator"
)

func init() {
	register("requests", "list the agents' open questions to the operator (android_ask_operator); answer or decline them", runRequests)
	register("answer", "answer an agent's open question: answer ID [TEXT]", runAnswer)
	register("decline", "decline an agent's open question: decline ID", runDecline)
}

func runRequests(args []string, stdout, stderr io.Writer) error {
	fs, dataDir := newAdminFlags("requests", stdout, "requests [--json] [--data-dir DIR]",
		"Lists the questions agents put to the operator (android_ask_operator) that wait for an answer: "+
			"`adb-connector answer ID [TEXT]` answers one, `adb-connector decline ID` declines it.")
	asJSON := fs.Bool("json", false, "print a JSON array of {id, channel, channel_id, device, message, expect, asked_at, deadline}")
	if _, err := parseAdminArgs(fs, args, stderr); err != nil {
		return err
	}
	return withAdmin(*dataDir, stderr, func(ctx context.Context, c *admin.Client) error {
		qs, err := c.Questions(ctx)
		if err != nil {
			return err
		}
		return printRows(stdout, *asJSON, qs, "no open question", printQuestions)
	})
}

// printQuestions is the questions table: what each wants and how long the
// agent still waits.
func printQuestions(w io.Writer, qs []admin.Question, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCHANNEL\tDEVICE\tEXPECT\tASKED\tLEFT\tMESSAGE")
	for _, q := range qs {
		_, serial := binding.SplitKey(q.Device)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s ago\t%s\t%s\n", q.ID, q.Channel, dash(serial), expectWords(q.Expect),
			operator.Round(now.Sub(q.AskedAt)), operator.Round(q.Deadline.Sub(now)), oneLine(q.Message))
	}
	return tw.Flush()
}

// expectWords is how `requests` shows what a question wants.
func expectWords(expect string) string {
	if expect == "" {
		return "any"
	}
	return expect
}

// oneLine keeps a message on its table row.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func runAnswer(args []string, stdout, stderr io.Writer) error {
	fs, dataDir := newAdminFlags("answer", stdout, "answer ID [TEXT] [--data-dir DIR]",
		"Answers the open question ID (adb-connector requests lists them): with TEXT when it expects a text, "+
			"without when it expects done. The text goes to the asking agent only; it is never logged.")
	pos, err := parseArgs(fs, args, stderr)
	if err != nil {
		return err
	}
	switch len(pos) {
	case 1, 2:
	case 0:
		return wantArgs(fs, stderr, pos, "ID")
	default:
		return usageError(fs, stderr, "too many arguments: quote TEXT (it takes ID [TEXT])")
	}
	text := ""
	if len(pos) == 2 {
		text = pos[1]
	}
	return withAdmin(*dataDir, stderr, func(ctx context.Context, c *admin.Client) error {
		key, err := c.Answer(ctx, pos[0], text)
		return reportQuestion(stdout, pos[0], key, err, "answered", "the agent has the answer")
	})
}

func runDecline(args []string, stdout, stderr io.Writer) error {
	fs, dataDir := newAdminFlags("decline", stdout, "decline ID [--data-dir DIR]",
		"Declines the open question ID (adb-connector requests lists them): the asking agent gets answered false.")
	pos, err := parseAdminArgs(fs, args, stderr, "ID")
	if err != nil {
		return err
	}
	return withAdmin(*dataDir, stderr, func(ctx context.Context, c *admin.Client) error {
		key, err := c.Decline(ctx, pos[0])
		return reportQuestion(stdout, pos[0], key, err, "declined", "the agent gets answered false")
	})
}

// reportQuestion ends answer and decline: the server's refusal as it
// words it (an unknown id, a text missing or not expected), or what was
// done.
func reportQuestion(stdout io.Writer, id, key string, err error, done, then string) error {
	var ae *admin.Error
	if errors.As(err, &ae) {
		return errors.New(ae.Message)
	}
	if err != nil {
		return err
	}
	_, serial := binding.SplitKey(key)
	_, err = fmt.Fprintf(stdout, "%s %s (the question about %s); %s\n", done, id, serial, then)
	return err
}
