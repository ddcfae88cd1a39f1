package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
)

// planOutput is the JSON that `quickchat plan` prints: the stable,
// backward-compatible interface other languages use to make grants.
type planOutput struct {
	GrantPath   string                 `json:"grantPath"`
	Prompt      string                 `json:"prompt"`
	Fingerprint string                 `json:"fingerprint"`
	Mode        grant.Mode             `json:"mode"`
	Tools       []string               `json:"tools"`
	Sources     []grant.Ref            `json:"sources"`
	Evidence    []researchctx.Evidence `json:"evidence"`
	Dropped     []researchctx.Dropped  `json:"dropped"`
	Budget      grant.Budget           `json:"budget"`
	RuntimeID   string                 `json:"runtimeId"`
	TurnID      string                 `json:"turnId"`
}

// planCmd reads a Request (a file, or "-" for standard input), resolves it,
// writes its grant and prints the Plan as one JSON object.
func planCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	reqPath := fs.String("request", "", "Request JSON file, or - for standard input")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("plan: %v (usage: quickchat plan -request FILE)", err)
	}
	if *reqPath == "" || fs.NArg() > 0 {
		return errors.New("plan: usage: quickchat plan -request FILE")
	}
	var r io.Reader = stdin
	if *reqPath != "-" {
		f, err := os.Open(*reqPath)
		if err != nil {
			return fmt.Errorf("plan: cannot open the request file: %v", errors.Unwrap(err))
		}
		defer f.Close()
		r = f
	}
	var req researchctx.Request
	dec := json.NewDecoder(io.LimitReader(r, 8<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return fmt.Errorf("plan: the request is not a valid Request (JSON, camelCase fields): %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("plan: the request has data after its JSON object")
	}
	plan, err := researchctx.Resolve(ctx, req)
	if err != nil {
		return fmt.Errorf("plan: %v", err)
	}
	out := planOutput{
		Prompt: plan.Prompt(), Fingerprint: plan.Fingerprint, Mode: plan.Mode, Tools: plan.Tools,
		Sources: plan.Sources, Evidence: plan.Evidence, Dropped: plan.Dropped, Budget: plan.Budget,
		RuntimeID: plan.RuntimeID, TurnID: plan.TurnID,
	}
	out.GrantPath, err = plan.WriteGrant()
	if err != nil {
		return fmt.Errorf("plan: %v", err)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
