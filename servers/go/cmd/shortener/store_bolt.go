package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

var (
	boltURLs       = []byte("urls")    // id -> url
	boltMeta       = []byte("meta")    // counterKey -> ids handed out so far
	boltCounterKey = []byte("counter") // big-endian uint64
)

// boltStore keeps urls in a bbolt file. bbolt runs one write transaction at a
// time and, with default options, every commit is flushed to disk before
// Update returns, so each write transaction costs disk syncs.
type boltStore struct {
	db      *bolt.DB
	scheme  Scheme
	commits atomic.Int64
}

func openBolt(path string, scheme Scheme) (*boltStore, error) {
	opts := *bolt.DefaultOptions
	// Fail instead of waiting forever when another process holds the file lock.
	opts.Timeout = 2 * time.Second
	db, err := bolt.Open(path, 0o600, &opts)
	if err != nil {
		return nil, fmt.Errorf("open bolt %s: %w", path, err)
	}
	// Create the buckets once, so request transactions can assume them. This
	// commit is not counted in Stats: it is not part of serving requests.
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{boltURLs, boltMeta} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("create bolt buckets: %w", err)
	}
	return &boltStore{db: db, scheme: scheme}, nil
}

// update runs fn in a write transaction and counts the commit.
func (s *boltStore) update(fn func(*bolt.Tx) error) error {
	if err := s.db.Update(fn); err != nil {
		return err
	}
	s.commits.Add(1)
	return nil
}

// allocate takes the next id from the counter. It must run inside a write
// transaction: bbolt's single writer lock is what makes read-increment-write
// safe here.
func allocate(tx *bolt.Tx) (string, error) {
	meta := tx.Bucket(boltMeta)
	var n uint64
	if v := meta.Get(boltCounterKey); v != nil {
		if len(v) != 8 {
			return "", fmt.Errorf("bolt counter is %d bytes, want 8", len(v))
		}
		n = binary.BigEndian.Uint64(v)
	}
	if err := meta.Put(boltCounterKey, binary.BigEndian.AppendUint64(nil, n+1)); err != nil {
		return "", err
	}
	return idFor(n), nil
}

func (s *boltStore) Add(_ context.Context, url string) (string, error) {
	var id string
	if s.scheme == TwoStep {
		// The author's bolt storage: one transaction allocates the id and a
		// second one stores the url. Both are write transactions, so bbolt's
		// writer lock serialises the allocations and no two POSTs get the same
		// id; what this scheme costs on bolt is a second fsynced commit per
		// POST. (On Redis the same two steps race: see redisStore.)
		err := s.update(func(tx *bolt.Tx) error {
			var err error
			id, err = allocate(tx)
			return err
		})
		if err != nil {
			return "", err
		}
		return id, s.update(func(tx *bolt.Tx) error {
			return tx.Bucket(boltURLs).Put([]byte(id), []byte(url))
		})
	}
	// Atomic: allocate and store in one transaction, one commit per POST.
	err := s.update(func(tx *bolt.Tx) error {
		var err error
		if id, err = allocate(tx); err != nil {
			return err
		}
		return tx.Bucket(boltURLs).Put([]byte(id), []byte(url))
	})
	return id, err
}

func (s *boltStore) Get(_ context.Context, id string) (string, error) {
	var url string
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(boltURLs).Get([]byte(id))
		if v == nil {
			return ErrNotFound
		}
		url = string(v) // copies: v is only valid inside the transaction
		return nil
	})
	return url, err
}

func (s *boltStore) Stats(context.Context) (Stats, error) {
	var st Stats
	err := s.db.View(func(tx *bolt.Tx) error {
		st.URLs = int64(tx.Bucket(boltURLs).Stats().KeyN)
		return nil
	})
	st.WriteTransactions = s.commits.Load()
	return st, err
}

func (s *boltStore) Close() error { return s.db.Close() }

var _ Store = (*boltStore)(nil)
