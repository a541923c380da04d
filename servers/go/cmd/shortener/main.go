// Command shortener is seed 004's Go server: the URL shortener of Quard/gosh
// (the article's author), on net/http, storing urls in bbolt or Redis and
// allocating ids either atomically or with the article's racy two steps.
//
// The API is servers/openapi/shortener.yaml.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"benchbook/servers/internal/profiling"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:5000", "listen address (host:port)")
	pprofAddr := flag.String("pprof", "", profiling.Flag)
	storage := flag.String("storage", "redis", "where urls are kept: bolt or redis")
	boltPath := flag.String("bolt-path", "shortener.bolt", "bbolt file, with -storage bolt")
	redisAddr := flag.String("redis-addr", "127.0.0.1:6379", "Redis host:port, with -storage redis")
	ids := flag.String("ids", string(Atomic), "id allocation: atomic, or two-step (the article's, racy)")
	flag.Parse()
	if err := profiling.Serve(*pprofAddr); err != nil {
		log.Fatal(err)
	}

	scheme, err := ParseScheme(*ids)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	store, err := openStore(ctx, *storage, *boltPath, *redisAddr, scheme)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: *addr, Handler: newHandler(store)}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		<-ctx.Done()
		// Drain in-flight requests before the store is closed, so that a bolt
		// file is released cleanly before the next run opens it.
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()

	log.Printf("shortener listening on %s (storage %s, ids %s)", *addr, *storage, scheme)
	err = srv.ListenAndServe()
	if errors.Is(err, http.ErrServerClosed) {
		<-drained // ListenAndServe returns as soon as Shutdown starts
	}
	if closeErr := store.Close(); closeErr != nil {
		log.Print(closeErr)
	}
	if !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

func openStore(ctx context.Context, kind, boltPath, redisAddr string, scheme Scheme) (Store, error) {
	switch kind {
	case "bolt":
		return openBolt(boltPath, scheme)
	case "redis":
		return openRedis(ctx, redisAddr, scheme)
	}
	return nil, fmt.Errorf("unknown storage %q (want bolt or redis)", kind)
}
