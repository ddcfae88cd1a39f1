package main

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/researchctx/researchctx/cli"
)

// planCmd is `quickchat plan -request FILE`: the plan subcommand of the
// researchctx command (package cli), the same JSON in and out, kept here so
// scripts written against quickchat keep working.
func planCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	c := &cli.Command{Name: "quickchat", Stdin: stdin, Stdout: stdout, Stderr: io.Discard}
	err := c.Run(ctx, append([]string{"plan"}, args...))
	if errors.Is(err, flag.ErrHelp) {
		_, err = io.WriteString(stdout, "usage: quickchat plan -request FILE|- [-cache-dir DIR]\n")
	}
	return err
}
