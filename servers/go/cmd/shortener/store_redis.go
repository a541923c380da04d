package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis key layout, shared with servers/python/shortener.py. The url keys keep
// the author's prefix; the counter holds how many ids were handed out (an
// integer, so that INCR works) instead of the author's last id string.
const (
	redisCounterKey = "gosh:counter"
	redisURLPrefix  = "gosh:urls:"
)

// countURLKeys counts the url keys in one round trip and exactly once each:
// SCAN may return a key twice while Redis resizes its table, KEYS does not.
// KEYS is O(number of keys) and blocks Redis, which is fine for a stats check
// after a run but would not be on a hot path.
var countURLKeys = redis.NewScript(`return #redis.call('KEYS', ARGV[1])`)

func redisURLKey(id string) string { return redisURLPrefix + id }

type redisStore struct {
	rdb    *redis.Client
	scheme Scheme
	writes atomic.Int64
	// afterRead, when set (only by tests), runs in TwoStep between reading the
	// counter and writing it back, to force the interleaving that loses urls.
	afterRead func()
}

func openRedis(ctx context.Context, addr string, scheme Scheme) (*redisStore, error) {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("redis at %s: %w", addr, err)
	}
	return &redisStore{rdb: rdb, scheme: scheme}, nil
}

func (s *redisStore) Add(ctx context.Context, url string) (string, error) {
	if s.scheme == TwoStep {
		return s.addTwoStep(ctx, url)
	}
	// INCR allocates and records the id in one command that Redis runs on its
	// own, so concurrent POSTs always get different ids.
	n, err := s.rdb.Incr(ctx, redisCounterKey).Uint64()
	if err != nil {
		return "", err
	}
	s.writes.Add(1)
	id := idFor(n - 1)
	if err := s.rdb.Set(ctx, redisURLKey(id), url, 0).Err(); err != nil {
		return "", err
	}
	s.writes.Add(1)
	return id, nil
}

// addTwoStep is the article's Redis scheme, kept racy on purpose: GET the
// counter, compute the next id here, then SET the url and SET the counter in
// one pipeline (a pipeline is not a transaction). Two POSTs that both GET the
// counter before either SETs it compute the same id; both answer 201 with it,
// the second SET overwrites the first url, and that url is lost.
func (s *redisStore) addTwoStep(ctx context.Context, url string) (string, error) {
	n, err := s.rdb.Get(ctx, redisCounterKey).Uint64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", err
	}
	if s.afterRead != nil {
		s.afterRead()
	}
	id := idFor(n)
	cmds, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, redisURLKey(id), url, 0)
		p.Set(ctx, redisCounterKey, n+1, 0)
		return nil
	})
	for _, c := range cmds {
		if c.Err() == nil {
			s.writes.Add(1)
		}
	}
	if err != nil {
		return "", err
	}
	return id, nil
}

func (s *redisStore) Get(ctx context.Context, id string) (string, error) {
	url, err := s.rdb.Get(ctx, redisURLKey(id)).Result()
	if errors.Is(err, redis.Nil) {
		return "", ErrNotFound
	}
	return url, err
}

func (s *redisStore) Stats(ctx context.Context) (Stats, error) {
	n, err := countURLKeys.Run(ctx, s.rdb, nil, redisURLPrefix+"*").Int64()
	return Stats{URLs: n, WriteTransactions: s.writes.Load()}, err
}

func (s *redisStore) Close() error { return s.rdb.Close() }

var _ Store = (*redisStore)(nil)
