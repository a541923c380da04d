// Command iodelay is seed 000's Go server: each request starts a goroutine that
// sleeps for the configured delay (simulated I/O) and sends the reply over a channel.
package main

import (
	"flag"
	"log"
	"net/http"
	"time"

	"benchbook/servers/internal/profiling"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (host:port)")
	pprofAddr := flag.String("pprof", "", profiling.Flag)
	delay := flag.Duration("delay", time.Millisecond, "simulated I/O time per request")
	flag.Parse()
	if err := profiling.Serve(*pprofAddr); err != nil {
		log.Fatal(err)
	}

	mux := http.NewServeMux()
	mux.Handle("GET /{$}", ioDelayHandler(*delay))
	log.Printf("iodelay listening on %s (delay %s)", *addr, *delay)
	log.Fatal(http.ListenAndServe(*addr, mux))
}

// ioDelayHandler mirrors the article's handler: the I/O runs in its own goroutine
// and the response waits on a channel, so the cost of the goroutine and channel
// is part of what is measured.
func ioDelayHandler(delay time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		ch := make(chan string)
		go func() {
			time.Sleep(delay)
			ch <- "ok"
		}()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(<-ch))
	})
}
