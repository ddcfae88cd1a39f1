package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProcessDrainAtEndOfInput: a client that writes its calls and closes
// stdin at once, without waiting for answers, gets every call answered, and
// every answered call is in the usage log, before the server exits.
func TestProcessDrainAtEndOfInput(t *testing.T) {
	const n = 30
	vault := sampleVault(t)
	gr := writeGrant(t, demoRequest(vault))
	cmd, stdin, stdout, stderr := rawServer(t, []string{Flag, gr})
	calls := []string{
		`{"name":"context_search","arguments":{"query":"strided global tokens","limit":1}}`,
		`{"name":"context_read","arguments":{"target":"papers/2401.01234"}}`,
		`{"name":"context_read","arguments":{"target":"notes"}}`,
		`{"name":"paper_relations","arguments":{"paper":"papers/2401.01234","limit":1}}`,
		`{"name":"context_search","arguments":{"query":"slot routing","limit":1,"source":"notes"}}`,
	}
	lines := []string{initializeLine, initializedLine}
	want := map[string]bool{}
	for i := range n {
		id := i + 2
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, calls[i%len(calls)]))
		want[strconv.Itoa(id)] = true
	}
	// One write, then the end of input: nothing waits for an answer.
	if _, err := stdin.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	if code := wait(t, cmd); code != ExitOK {
		t.Fatalf("exit code %d, want %d (stderr %q)", code, ExitOK, stderr.String())
	}
	got := map[string]bool{}
	results := 0
	sc := bufio.NewScanner(strings.NewReader(stdout.String()))
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
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls answered (-want +got):\n%s", diff)
	}
	if u := usage(t, gr, "turn-1"); u.Calls != results || u.Skipped != 0 {
		t.Errorf("usage log: %d calls, %d torn lines; want %d (one per answered call)", u.Calls, u.Skipped, results)
	}
}
