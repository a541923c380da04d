package main

import (
	"context"
	"errors"
	"fmt"
)

// ErrNotFound is returned by Store.Get for an id that holds no url.
var ErrNotFound = errors.New("id not found")

// Scheme is how a store allocates the next id.
type Scheme string

const (
	// Atomic allocates the id and stores the url so that no two POSTs can get
	// the same id: Redis INCR, or one bolt write transaction.
	Atomic Scheme = "atomic"
	// TwoStep is the article's scheme: allocating the id and storing the url
	// are separate steps. See the stores for why it can lose urls on Redis.
	TwoStep Scheme = "two-step"
)

// ParseScheme accepts the -ids flag's values.
func ParseScheme(s string) (Scheme, error) {
	switch Scheme(s) {
	case Atomic, TwoStep:
		return Scheme(s), nil
	}
	return "", fmt.Errorf("unknown id scheme %q (want %q or %q)", s, Atomic, TwoStep)
}

// Stats is what GET /api/v1/stats reports, so that a harness can compare the
// store's contents with the 201s it counted.
type Stats struct {
	// URLs is the number of urls the store holds.
	URLs int64 `json:"urls"`
	// WriteTransactions is the number of write commits this process made to
	// the store since it started: bolt Update transactions, or Redis write
	// commands (each of which Redis applies atomically on its own).
	WriteTransactions int64 `json:"write_transactions"`
}

// Store keeps urls under short ids.
type Store interface {
	// Add stores url under a newly allocated id and returns the id.
	Add(ctx context.Context, url string) (string, error)
	// Get returns the url stored under id, or ErrNotFound.
	Get(ctx context.Context, id string) (string, error)
	Stats(ctx context.Context) (Stats, error)
	Close() error
}
