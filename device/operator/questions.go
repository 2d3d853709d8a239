package operator

import (
	"context"
	"errors"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/ask"
	"github.com/adb-connector/adb-connector/device/redact"
)

// The agents' questions (android_ask_operator): listed, answered and
// declined here for the CLI and the console alike. A reply is handed to
// the waiting call only: never logged, never in an error.

// maxQuestionID bounds a question id an operator names.
const maxQuestionID = 32

// Questions lists the open questions, oldest first.
func (a *API) Questions(context.Context) ([]admin.Question, error) {
	if a.cfg.Questions == nil {
		return []admin.Question{}, nil
	}
	qs := a.cfg.Questions.List()
	out := make([]admin.Question, len(qs))
	for i, q := range qs {
		out[i] = admin.Question{ID: q.ID, Channel: redact.ChannelLabel(q.ChannelID), ChannelID: q.ChannelID, Device: q.DeviceKey,
			Message: q.Message, Expect: q.Expect, AskedAt: q.AskedAt, Deadline: q.Deadline}
	}
	return out, nil
}

// Answer answers the open question id with text ("" none). A question
// that expects a text refuses none, one that expects done refuses a text
// (invalid_argument, the question stays open); an id with no open
// question is unknown_question. It returns the device asked about.
func (a *API) Answer(_ context.Context, id, text string) (string, error) {
	if err := checkQuestionID("answer", id); err != nil {
		return "", err
	}
	q, err := a.board().Answer(id, text)
	return q.DeviceKey, questionError("answer", id, err)
}

// Decline declines the open question id: the agent's call returns
// answered false. It returns the device asked about.
func (a *API) Decline(_ context.Context, id string) (string, error) {
	if err := checkQuestionID("decline", id); err != nil {
		return "", err
	}
	q, err := a.board().Decline(id)
	return q.DeviceKey, questionError("decline", id, err)
}

// board is the questions' board; an API without one has an empty board
// (nothing to answer).
func (a *API) board() *ask.Board {
	if a.cfg.Questions == nil {
		return ask.NewBoard()
	}
	return a.cfg.Questions
}

func checkQuestionID(op, id string) error {
	switch {
	case id == "":
		return invalid(op + " needs a question id (adb-connector requests lists them)")
	case len(id) > maxQuestionID:
		return invalid("question id too long")
	}
	return nil
}

// questionError is the operator's word for a board error.
func questionError(op, id string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ask.ErrUnknown):
		return &admin.Error{Code: admin.CodeUnknownQuestion, Err: err,
			Message: op + ": no open question " + id + " (answered, declined, withdrawn or never asked); adb-connector requests lists the open ones"}
	}
	return &admin.Error{Code: admin.CodeInvalidArgument, Err: err, Message: op + " " + id + ": " + err.Error()}
}
