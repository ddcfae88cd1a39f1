package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// drainCalls are the calls the drain tests write: every tool, each call
// small enough that thirty fit the turn's budget.
var drainCalls = []string{
	`{"name":"context_search","arguments":{"query":"strided global tokens","limit":1}}`,
	`{"name":"context_read","arguments":{"target":"papers/2401.01234"}}`,
	`{"name":"context_read","arguments":{"target":"notes"}}`,
	`{"name":"paper_relations","arguments":{"paper":"papers/2401.01234","limit":1}}`,
	`{"name":"context_search","arguments":{"query":"slot routing","limit":1,"source":"notes"}}`,
}

// drainInput is the initialize handshake and n tool calls (ids 2 to n+1),
// one line each.
func drainInput(n int) (string, map[string]bool) {
	lines := []string{initializeLine, initializedLine}
	want := map[string]bool{}
	for i := range n {
		id := i + 2
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, drainCalls[i%len(drainCalls)]))
		want[strconv.Itoa(id)] = true
	}
	return strings.Join(lines, "\n") + "\n", want
}

// TestServeDrainsAtEndOfInput: Serve on an input that ends right after its
// calls answers every one of them, and logs each, before it returns.
func TestServeDrainsAtEndOfInput(t *testing.T) {
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	in, want := drainInput(30)
	var out bytes.Buffer
	if err := Serve(context.Background(), gr, strings.NewReader(in), &out, nil); err != nil {
		t.Fatal(err)
	}
	got, results := answers(t, out.String())
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls answered (-want +got):\n%s", diff)
	}
	if u := turnUsage(t, gr, "turn-1"); u.Calls != results || results != len(want) {
		t.Errorf("usage log: %d calls; want %d, one per answered call", u.Calls, results)
	}
}

// TestProcessDrainAtEndOfInput: a client that writes its calls and closes
// stdin at once, without waiting for answers, gets every call answered, and
// every answered call is in the usage log, before the server exits.
func TestProcessDrainAtEndOfInput(t *testing.T) {
	const n = 30
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	cmd, stdin, stdout, stderr := rawServer(t, []string{Flag, gr})
	in, want := drainInput(n)
	// One write, then the end of input: nothing waits for an answer.
	if _, err := stdin.WriteString(in); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	if code := wait(t, cmd); code != ExitOK {
		t.Fatalf("exit code %d, want %d (stderr %q)", code, ExitOK, stderr.String())
	}
	got, results := answers(t, stdout.String())
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls answered (-want +got):\n%s", diff)
	}
	if u := turnUsage(t, gr, "turn-1"); u.Calls != results || u.Skipped != 0 {
		t.Errorf("usage log: %d calls, %d torn lines; want %d (one per answered call)", u.Calls, u.Skipped, results)
	}
}

// answers reads the server's output: the ids of the tool calls answered,
// and how many returned a result, failing the test on a protocol or tool
// error.
func answers(t *testing.T, stdout string) (map[string]bool, int) {
	t.Helper()
	got := map[string]bool{}
	results := 0
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage           `json:"id"`
			Error  *struct{ Message string } `json:"error"`
			Result *struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("stdout line is not JSON: %.200q", sc.Text())
		}
		id := string(msg.ID)
		if id == "1" {
			continue // initialize
		}
		switch {
		case msg.Error != nil:
			t.Errorf("call %s: protocol error %q, want a result", id, msg.Error.Message)
		case msg.Result == nil:
			t.Errorf("call %s: no result", id)
		case msg.Result.IsError:
			t.Errorf("call %s: tool error %+v, want a result", id, msg.Result.Content)
		default:
			results++
		}
		got[id] = true
	}
	return got, results
}
