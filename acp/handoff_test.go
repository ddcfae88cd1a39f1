package acp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHandoff(t *testing.T) {
	quote := "The dominant sequence transduction models are based on complex recurrent or convolutional neural networks."
	prompt := "## Research context\n\n[1] \"Attention\", paper papers/a, page 1\n> " + quote + "\nCite: papers/a/a.pdf#page=1\n\nWhat replaces recurrence here?"
	long := strings.Repeat("word ", 400) // 2000 characters, cut at 1200 in a prompt
	tests := []struct {
		name      string
		displayed []Message
		prompt    string
		want      []string // paragraphs that must be in the block, in order
		wantNot   []string // text that must not be in it
		empty     bool
	}{
		{
			name:  "nothing displayed gives no block",
			empty: true,
		},
		{
			name:      "everything already in the prompt gives no block",
			displayed: []Message{{RoleUser, "> " + quote + "\n\nWhat replaces recurrence here?"}},
			prompt:    prompt,
			empty:     true,
		},
		{
			name: "the quote in the prompt is not pasted twice, the rest is kept",
			displayed: []Message{
				{RoleUser, "> " + quote + "\nWhat is a transduction model?"},
				{RoleAgent, "A model that maps one sequence to another."},
				{RoleUser, "What replaces recurrence here?"},
			},
			prompt:  prompt,
			want:    []string{"User:\n> What is a transduction model?", "Assistant:\n> A model that maps one sequence to another."},
			wantNot: []string{"complex recurrent", "What replaces recurrence here?"},
		},
		{
			name:      "whitespace and quote markers do not hide a duplicate",
			displayed: []Message{{RoleUser, "The dominant sequence transduction models\n   are based on complex recurrent or\nconvolutional neural networks.\n\nExplain."}},
			prompt:    prompt,
			want:      []string{"User:\n> Explain."},
			wantNot:   []string{"dominant"},
		},
		{
			name:      "a long quote cut short in the prompt counts as carried",
			displayed: []Message{{RoleUser, long + "\n\nSummarise."}},
			prompt:    "> " + long[:1200] + "\n(quote cut at 1200 characters)\n\nnext question",
			want:      []string{"User:\n> Summarise."},
			wantNot:   []string{"word word"},
		},
		{
			name:      "a short paragraph counts only as a whole prompt paragraph",
			displayed: []Message{{RoleUser, "Yes."}, {RoleAgent, "here"}},
			prompt:    "Yes, and the answer is here in the text.",
			want:      []string{"User:\n> Yes.", "Assistant:\n> here"},
		},
		{
			name: "a paragraph repeated across messages is kept once",
			displayed: []Message{
				{RoleUser, "> A quote the user selected twice in a row.\n\nFirst question?"},
				{RoleUser, "> A quote the user selected twice in a row.\n\nSecond question?"},
			},
			prompt: "unrelated",
			want:   []string{"User:\n> A quote the user selected twice in a row.\n>\n> First question?", "User:\n> Second question?"},
		},
		{
			name:      "blank messages are dropped",
			displayed: []Message{{RoleUser, "  \n\n "}, {RoleAgent, "ok then, fine"}},
			prompt:    "p",
			want:      []string{"Assistant:\n> ok then, fine"},
			wantNot:   []string{"User:"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Handoff(tt.displayed, tt.prompt)
			if tt.empty {
				if got != "" {
					t.Fatalf("Handoff = %q, want empty", got)
				}
				return
			}
			if !strings.HasPrefix(got, HandoffHeader+"\n") {
				t.Fatalf("Handoff does not start with the header:\n%s", got)
			}
			at := 0
			for _, w := range tt.want {
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("Handoff lacks %q after offset %d:\n%s", w, at, got)
				}
				at += i + len(w)
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("Handoff contains %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestHandoffCap(t *testing.T) {
	var msgs []Message
	for i := range 200 {
		msgs = append(msgs, Message{RoleUser, fmt.Sprintf("message %d: %s", i, strings.Repeat("x", 300))})
	}
	got := Handoff(msgs, "prompt")
	if n := len([]rune(got)); n > maxHandoff {
		t.Fatalf("hand-off of %d characters exceeds %d", n, maxHandoff)
	}
	if !strings.Contains(got, "earlier messages left out") {
		t.Errorf("no note about left-out messages")
	}
	// The newest message is kept.
	if !strings.Contains(got, msgs[len(msgs)-1].Text) {
		t.Errorf("newest message missing")
	}
	huge := Handoff([]Message{{RoleAgent, strings.Repeat("x ", maxHandoff)}}, "")
	if n := len([]rune(huge)); n > maxHandoff {
		t.Fatalf("single huge message: %d characters exceeds %d", n, maxHandoff)
	}
}

func TestParagraphs(t *testing.T) {
	got := []string{}
	for _, p := range paragraphs("> quoted line one\n> line two\nplain after\n\n\n  second para  \r\nstill second") {
		got = append(got, p.flat)
	}
	want := []string{"quoted line one line two", "plain after", "second para still second"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paragraphs (-want +got):\n%s", diff)
	}
}
