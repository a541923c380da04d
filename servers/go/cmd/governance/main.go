// Command governance is seed 001's governance service in Go, over one transport:
// net/http with JSON (-transport http) or grpc-go (-transport grpc). Both serve the
// same in-memory engine (package benchbook/servers/governance) and the same API as the
// Python backend in servers/python/governance.
//
//	governance -transport http -addr 127.0.0.1:8000
//	governance -transport grpc -addr 127.0.0.1:50051
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"benchbook/servers/governance"
	"benchbook/servers/internal/profiling"
)

func main() {
	transport := flag.String("transport", "http", "http (net/http, JSON) or grpc (grpc-go)")
	addr := flag.String("addr", "127.0.0.1:8000", "listen address (host:port)")
	pprofAddr := flag.String("pprof", "", profiling.Flag)
	flag.Parse()
	if err := profiling.Serve(*pprofAddr); err != nil {
		log.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *transport, *addr); err != nil {
		log.Fatal(err)
	}
}

// run serves until ctx is done, then stops gracefully.
func run(ctx context.Context, transport, addr string) error {
	if transport != "http" && transport != "grpc" {
		return fmt.Errorf("-transport %q: want http or grpc", transport)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	engine := governance.NewEngine()
	log.Printf("governance (%s) listening on %s", transport, ln.Addr())

	if transport == "grpc" {
		srv := governance.NewGRPCServer(engine)
		go func() {
			<-ctx.Done()
			srv.GracefulStop()
		}()
		return srv.Serve(ln)
	}

	srv := &http.Server{Handler: governance.NewHTTPHandler(engine)}
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
