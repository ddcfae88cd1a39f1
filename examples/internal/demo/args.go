package demo

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// AgentCommand splits an -agent value into a command line and checks that
// the command can be found.
func AgentCommand(s string) ([]string, error) {
	args, err := SplitArgs(s)
	if err != nil {
		return nil, fmt.Errorf("-agent: %v", err)
	}
	if len(args) == 0 {
		return nil, errors.New("-agent: empty command")
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		return nil, fmt.Errorf("agent command %q not found", args[0])
	}
	return args, nil
}

// SplitArgs splits a command line into words the way a shell does for
// simple cases: blanks separate words; single quotes keep everything
// literally; double quotes keep blanks and honour backslash before " and \;
// a backslash outside quotes escapes the next character. No expansion of
// any kind is done.
func SplitArgs(s string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		inArg bool
		quote rune
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\'):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inArg = c, true
		case c == '\\':
			if i+1 == len(rs) {
				return nil, errors.New("trailing backslash")
			}
			i++
			cur.WriteRune(rs[i])
			inArg = true
		case c == ' ' || c == '\t' || c == '\n':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(c)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, nil
}
