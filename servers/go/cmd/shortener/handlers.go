package main

import (
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"unicode/utf8"
)

// maxBodyBytes bounds a POST body; aiohttp's default client_max_size is the same.
const maxBodyBytes = 1 << 20

// urlRecord is the body of a 201 from POST and of a 200 from GET /api/v1/url/{id}.
type urlRecord struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

type errorBody struct {
	Error string `json:"error"`
}

// newHandler routes the API described in servers/openapi/shortener.yaml.
func newHandler(store Store) http.Handler {
	h := handlers{store: store}
	mux := http.NewServeMux()
	// {$}: without it a trailing-slash pattern matches every path below it.
	mux.HandleFunc("POST /api/v1/url/{$}", h.create)
	mux.HandleFunc("GET /api/v1/url/{id}", h.retrieve)
	mux.HandleFunc("GET /api/v1/stats", h.stats)
	mux.HandleFunc("GET /{id}", h.redirect)
	return mux
}

type handlers struct{ store Store }

func (h handlers) create(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSON(w, http.StatusRequestEntityTooLarge, errorBody{"body larger than 1 MiB"})
			return
		}
		writeJSON(w, http.StatusBadRequest, errorBody{"could not read body"})
		return
	}
	url, problem := parseCreate(body)
	if problem != "" {
		writeJSON(w, http.StatusBadRequest, errorBody{problem})
		return
	}
	id, err := h.store.Add(r.Context(), url)
	if err != nil {
		serverError(w, "add url", err)
		return
	}
	writeJSON(w, http.StatusCreated, urlRecord{ID: id, URL: url})
}

// parseCreate returns the url of a POST body, or why the body is rejected.
// It decodes into a map rather than a struct so that, as in the Python server,
// only the exact key "url" counts (encoding/json matches struct fields
// case-insensitively) and invalid UTF-8 is refused rather than replaced.
func parseCreate(body []byte) (url, problem string) {
	if !utf8.Valid(body) {
		return "", "body is not UTF-8"
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return "", `body must be a JSON object like {"url": "..."}`
	}
	raw, ok := fields["url"]
	if !ok {
		return "", `missing "url"`
	}
	if err := json.Unmarshal(raw, &url); err != nil || string(raw) == "null" {
		return "", `"url" must be a string`
	}
	if url == "" {
		return "", `"url" is empty`
	}
	// The url goes back out in a Location header, where control characters
	// (CR and LF above all) cannot be written.
	for _, c := range url {
		if c < 0x20 || c == 0x7f {
			return "", `"url" contains a control character`
		}
	}
	return url, ""
}

func (h handlers) retrieve(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	url, ok := h.lookup(w, r, id)
	if ok {
		writeJSON(w, http.StatusOK, urlRecord{ID: id, URL: url})
	}
}

func (h handlers) redirect(w http.ResponseWriter, r *http.Request) {
	url, ok := h.lookup(w, r, r.PathValue("id"))
	if ok {
		// Not http.Redirect: it would rewrite relative urls and add an HTML
		// body; the author sends the stored url as it is, with no body.
		w.Header().Set("Location", url)
		w.WriteHeader(http.StatusMovedPermanently)
	}
}

// lookup gets id's url, or answers 404 (or 500) itself and returns false.
func (h handlers) lookup(w http.ResponseWriter, r *http.Request, id string) (string, bool) {
	url, err := h.store.Get(r.Context(), id)
	switch {
	case errors.Is(err, ErrNotFound):
		writeJSON(w, http.StatusNotFound, errorBody{"no url with this id"})
		return "", false
	case err != nil:
		serverError(w, "get url", err)
		return "", false
	}
	return url, true
}

func (h handlers) stats(w http.ResponseWriter, r *http.Request) {
	st, err := h.store.Stats(r.Context())
	if err != nil {
		serverError(w, "stats", err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func serverError(w http.ResponseWriter, what string, err error) {
	log.Printf("%s: %v", what, err)
	writeJSON(w, http.StatusInternalServerError, errorBody{"storage error"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil { // only plain structs of strings and ints are written
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
