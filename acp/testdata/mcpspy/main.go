// Command mcpspy stands in for the agentero-context server in the interop
// test: it runs the real server with its own arguments and copies every
// line between the agent and the server to a log, so the test can see that
// an agent it does not control spawned the server and got an answer to
// tools/list. It reads the real server's path and the log's path from the
// JSON file named like its executable plus ".json", because the server
// entry carries no environment.
package main

import (
	"bufio"
	"encoding/json"
	"io"
	"log"
	"os"
	"os/exec"
	"sync"
)

type config struct {
	Server string `json:"server"`
	Log    string `json:"log"`
}

func main() {
	log.SetFlags(0)
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	data, err := os.ReadFile(exe + ".json")
	if err != nil {
		log.Fatal(err)
	}
	var cfg config
	if err := json.Unmarshal(data, &cfg); err != nil {
		log.Fatal(err)
	}
	out, err := os.OpenFile(cfg.Log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	logLine := func(dir string, line []byte) {
		mu.Lock()
		defer mu.Unlock()
		out.Write(append(append([]byte(dir), line...), '\n'))
	}
	logLine("# ", []byte("started"))

	cmd := exec.Command(cfg.Server, os.Args[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		log.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	copyLines := func(dst io.Writer, src io.Reader, dir string) {
		sc := bufio.NewScanner(src)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			logLine(dir, sc.Bytes())
			dst.Write(append(sc.Bytes(), '\n'))
		}
	}
	go func() {
		copyLines(in, os.Stdin, "> ")
		in.Close()
	}()
	copyLines(os.Stdout, stdout, "< ")
	err = cmd.Wait()
	logLine("# ", []byte("exited"))
	if err != nil {
		os.Exit(1)
	}
}
