package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

const (
	// model is the model name the provider config selects and /v1/models lists.
	model = "fake-model"
	// envKey is the environment variable Codex reads the provider's API key from. Unless it
	// is set, Codex fails every turn with "Missing environment variable" before sending a
	// request; the fake ignores its value.
	envKey = "TRAILBOSS_FAKE_OPENAI_KEY"
)

// Server is a running fake Responses API on a loopback port.
type Server struct {
	// URL is the API's base URL, "http://127.0.0.1:PORT/v1".
	URL string

	srv      *http.Server
	ctx      context.Context // cancelled by Close, so that slow streams end
	cancel   context.CancelFunc
	requests atomic.Int64 // also numbers the responses, for their ids
	streams  atomic.Int64 // streams being written now

	mu     sync.Mutex
	closed bool
	chats  []string       // ChatLog
	served sync.WaitGroup // the Serve loop and every stream handler
}

// Start returns a Server listening on 127.0.0.1 on a free port, or the error of listening.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String() + "/v1"}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", s.handleResponses)
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("GET /v1/models", handleModels)
	mux.HandleFunc("/", handleUnknown)
	s.srv = &http.Server{Handler: mux, BaseContext: func(net.Listener) context.Context { return s.ctx }}
	s.served.Add(1)
	go func() {
		defer s.served.Done()
		_ = s.srv.Serve(ln) // returns http.ErrServerClosed once Close is called
	}()
	return s, nil
}

// Close stops the server: it ends streams under way, closes every connection and returns
// once no handler is running.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.srv.Close()
	s.served.Wait()
}

// enter reports whether a handler may run, and if so counts it in s.served; a handler that
// may run must call s.served.Done when it returns.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.served.Add(1)
	return true
}

// Requests returns how many POST /v1/responses requests the server has begun answering
// with a stream, the hidden title requests included.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// ProviderConfig returns config.toml lines that make Codex use this server, and the name of
// the environment variable that must be set (to any value) in Codex's environment. The
// lines set the top-level keys model and model_provider and then open the
// [model_providers.fake] table, so other top-level keys must come before them.
func (s *Server) ProviderConfig() (toml string, envKeyName string) {
	return fmt.Sprintf(`model = %q
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = %q
request_max_retries = 0
stream_max_retries = 0
`, model, s.URL, envKey), envKey
}

// handleResponses answers POST /v1/responses with the scripted reply as an event stream.
func (s *Server) handleResponses(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		writeError(w, http.StatusServiceUnavailable, "server_error", "the fake is closing")
		return
	}
	defer s.served.Done()
	var req struct {
		Model string      `json:"model"`
		Input []inputItem `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "decode request: "+err.Error())
		return
	}
	if req.Model == "" {
		req.Model = model
	}
	n := s.requests.Add(1)
	s.streams.Add(1)
	defer s.streams.Add(-1)
	st := newStream(w, r, fmt.Sprint(n), req.Model)
	st.send(choose(req.Input))
}

// handleModels answers GET /v1/models with a list of the one fake model. Codex 0.169.0 does
// not ask for it with a custom provider; it is here for other clients and for curl.
func handleModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []map[string]any{
			{"id": model, "object": "model", "created": 0, "owned_by": "trailboss"},
		},
	})
}

// handleUnknown answers every other request with a 404 in the API's error shape.
func handleUnknown(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("the fake has no %s %s", r.Method, r.URL.Path))
}

func writeError(w http.ResponseWriter, status int, kind, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": kind}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // a failed write means the client left; nothing to tell it
}
