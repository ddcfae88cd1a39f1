package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequestChecks: a request whose Host is not the server's own address
// (DNS rebinding: another site's name pointed at 127.0.0.1), whose Origin
// is another site's, or that another site's page fetches, is refused
// before any route runs.
func TestRequestChecks(t *testing.T) {
	s, ts := testServer(t, sampleVault(t), 0)
	own := ts.Listener.Addr().String()
	tests := []struct {
		name   string
		host   string
		header map[string]string
		path   string
		want   int
	}{
		{"own host", own, nil, "/", http.StatusOK},
		{"own host, api", own, nil, "/api/state", http.StatusOK},
		{"rebound name", "attacker.example" + own[strings.LastIndex(own, ":"):], nil, "/api/state", http.StatusForbidden},
		{"rebound name, no port", "attacker.example", nil, "/", http.StatusForbidden},
		{"another port", "127.0.0.1:1", nil, "/api/state", http.StatusForbidden},
		{"localhost is another name", "localhost" + own[strings.LastIndex(own, ":"):], nil, "/api/state", http.StatusForbidden},
		{"empty host", "", nil, "/", http.StatusForbidden},
		{"other origin", own, map[string]string{"Origin": "https://attacker.example"}, "/api/state", http.StatusForbidden},
		{"null origin", own, map[string]string{"Origin": "null"}, "/api/state", http.StatusForbidden},
		{"own origin", own, map[string]string{"Origin": s.origin}, "/api/state", http.StatusOK},
		{"cross-site fetch", own, map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}, "/api/state", http.StatusForbidden},
		{"cross-site no-cors fetch of a document", own, map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}, "/doc/notes/ideas.txt", http.StatusForbidden},
		{"cross-site navigation to the page", own, map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}, "/", http.StatusOK},
		{"same-origin fetch", own, map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}, "/api/state", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			req.Host = tt.host
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Errorf("GET %s with Host %q: %d, want %d (%s)", tt.path, tt.host, rec.Code, tt.want, strings.TrimSpace(rec.Body.String()))
			}
			if tt.want == http.StatusForbidden && strings.Contains(rec.Body.String(), s.token) {
				t.Error("a refused request got the token")
			}
		})
	}
}

// TestStateChangingRequests: a POST needs the per-launch token in its
// header, JSON, and no foreign Origin; a form another site posts has none
// of them.
func TestStateChangingRequests(t *testing.T) {
	s, ts := testServer(t, sampleVault(t), 0)
	body := `{"currentPaper":"papers/2401.01234","selections":[],"mentions":[]}`
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"the page's request", map[string]string{"Content-Type": "application/json", tokenHeader: s.token, "Origin": s.origin}, http.StatusOK},
		{"no origin header (not a browser)", map[string]string{"Content-Type": "application/json", tokenHeader: s.token}, http.StatusOK},
		{"no token", map[string]string{"Content-Type": "application/json", "Origin": s.origin}, http.StatusForbidden},
		{"wrong token", map[string]string{"Content-Type": "application/json", tokenHeader: strings.Repeat("0", 64), "Origin": s.origin}, http.StatusForbidden},
		{"token of another length", map[string]string{"Content-Type": "application/json", tokenHeader: s.token[:10], "Origin": s.origin}, http.StatusForbidden},
		{"a cross-site form post", map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://attacker.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}, http.StatusForbidden},
		{"text/plain with the token", map[string]string{"Content-Type": "text/plain", tokenHeader: s.token, "Origin": s.origin}, http.StatusForbidden},
		{"the token from another origin", map[string]string{"Content-Type": "application/json", tokenHeader: s.token, "Origin": "https://attacker.example"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, ts.URL+"/api/plan", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("POST /api/plan: %d, want %d (%s)", resp.StatusCode, tt.want, strings.TrimSpace(string(data)))
			}
		})
	}
	// Nothing about the token leaves the page: no URL of the page names it.
	resp, err := ts.Client().Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if n := strings.Count(string(page), s.token); n != 1 {
		t.Errorf("the page holds the token %d times, want once (its meta tag)", n)
	}
	if strings.Contains(string(page), "?"+s.token) || strings.Contains(string(page), "="+s.token) {
		t.Error("the token is in a URL of the page")
	}
	for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "Referrer-Policy", "X-Content-Type-Options"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("the page has no %s header", h)
		}
	}
}

// TestDocRoutes: the document route serves vault files through the safe
// file layer and nothing else: no path outside the vault, however it is
// spelled, no dot entry (.agentero), no symbolic link, no folder.
func TestDocRoutes(t *testing.T) {
	vault := sampleVault(t)
	outside := filepath.Join(filepath.Dir(vault), "secret.md")
	const secret = "TOP SECRET outside the vault"
	if err := os.WriteFile(outside, []byte("# Secret\n"+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"notes/out.md":         outside,
		"notes/rel-out.md":     "../../secret.md",
		"notes/inside-link.md": "reading-plan.md",
		"papers/linkdir":       filepath.Dir(vault),
	} {
		if err := os.Symlink(target, filepath.Join(vault, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(vault, "notes", ".hidden.md"), []byte("# Hidden\n"+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(vault, ".agentero"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, ".agentero", "private.md"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	_, ts := testServer(t, vault, 0)
	tests := []struct {
		path     string // as sent, already escaped
		want     int
		wantType string
		contains string
	}{
		{"/doc/papers/2401.01234/2401.01234.pdf", http.StatusOK, "application/pdf", "%PDF-"},
		{"/doc/notes/meeting%202024-03-12.md", http.StatusOK, "text/html; charset=utf-8", `id="section=Slot routing results"`},
		{"/doc/notes/ideas.txt", http.StatusOK, "text/html; charset=utf-8", "ideas.txt"},
		{"/doc/reading-list", http.StatusOK, "text/html; charset=utf-8", "reading-list"},
		{"/doc/notes/archive/whiteboard.png", http.StatusUnsupportedMediaType, "", ""},
		{"/doc/%2e%2e/secret.md", http.StatusBadRequest, "", ""},
		{"/doc/notes/%2e%2e/%2e%2e/secret.md", http.StatusBadRequest, "", ""},
		{"/doc/notes%2f..%2f..%2fsecret.md", http.StatusBadRequest, "", ""},
		{"/doc/..%5c..%5csecret.md", http.StatusBadRequest, "", ""},
		{"/doc/%2f" + strings.TrimPrefix(filepath.ToSlash(outside), "/"), http.StatusBadRequest, "", ""},
		{"/doc/" + strings.ReplaceAll(filepath.ToSlash(outside), "/", "%2f"), http.StatusBadRequest, "", ""},
		{"/doc/notes/ideas.txt%00.pdf", http.StatusBadRequest, "", ""},
		{"/doc/.agentero/private.md", http.StatusBadRequest, "", ""},
		{"/doc/.agentero/context-sessions/sidebar/grant.json", http.StatusBadRequest, "", ""},
		{"/doc/%2eagentero/private.md", http.StatusBadRequest, "", ""},
		{"/doc/notes/.hidden.md", http.StatusBadRequest, "", ""},
		{"/doc/notes/out.md", http.StatusNotFound, "", ""},
		{"/doc/notes/rel-out.md", http.StatusNotFound, "", ""},
		{"/doc/notes/inside-link.md", http.StatusNotFound, "", ""},
		{"/doc/papers/linkdir/secret.md", http.StatusNotFound, "", ""},
		{"/doc/notes", http.StatusNotFound, "", ""},
		{"/doc/notes/missing.md", http.StatusNotFound, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, ts.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Send the path as written: no client-side cleaning.
			req.URL.RawPath = tt.path
			client := *ts.Client()
			client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(data), secret) {
				t.Fatalf("GET %s served what is outside the vault or private", tt.path)
			}
			if strings.Contains(string(data), vault) {
				t.Errorf("GET %s names the vault's absolute path", tt.path)
			}
			if resp.StatusCode != tt.want {
				t.Fatalf("GET %s: %d, want %d (%s)", tt.path, resp.StatusCode, tt.want, strings.TrimSpace(string(data)))
			}
			if tt.wantType != "" && resp.Header.Get("Content-Type") != tt.wantType {
				t.Errorf("GET %s: Content-Type %q, want %q", tt.path, resp.Header.Get("Content-Type"), tt.wantType)
			}
			if !strings.Contains(string(data), tt.contains) {
				t.Errorf("GET %s: the answer has no %q", tt.path, tt.contains)
			}
		})
	}
}

// TestDocEscapes: a note's text and headings are data: markup in them is
// shown, never run.
func TestDocEscapes(t *testing.T) {
	vault := sampleVault(t)
	note := "# <script>alert(1)</script> plan\n\nsee <img src=x onerror=alert(2)> & \"quotes\"\n\n## Next \"step\"\n<b>bold</b>\n"
	if err := os.WriteFile(filepath.Join(vault, "notes", "x<y>.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ts := testServer(t, vault, 0)
	resp, err := ts.Client().Get(ts.URL + "/doc/notes/x%3Cy%3E.md")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(data)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d: %s", resp.StatusCode, page)
	}
	for _, bad := range []string{"<script>alert", "<img src=x", "<b>bold", "x<y>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt; plan", "&lt;img src=x onerror=alert(2)&gt;", `id="section=Next &#34;step&#34;"`, "x&lt;y&gt;.md"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q:\n%s", want, page)
		}
	}
}
