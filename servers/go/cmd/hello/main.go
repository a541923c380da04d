// Command hello is seed 002's Go server: net/http with one handler writing a fixed
// text, nothing else. It is also the fastest server benchbook has, so notebook 00
// measures each load tool's ceiling against it.
package main

import (
	"flag"
	"log"
	"net/http"

	"benchbook/servers/internal/profiling"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (host:port)")
	pprofAddr := flag.String("pprof", "", profiling.Flag)
	flag.Parse()
	if err := profiling.Serve(*pprofAddr); err != nil {
		log.Fatal(err)
	}

	mux := http.NewServeMux()
	// "/" matches every path, as in the article (http.HandleFunc("/", …)).
	mux.HandleFunc("/", hello)
	log.Printf("hello listening on %s", *addr)
	log.Fatal(http.ListenAndServe(*addr, mux))
}

// hello is the article's handler: no headers set, so net/http sniffs the type.
func hello(w http.ResponseWriter, _ *http.Request) {
	_, _ = w.Write([]byte("Go-Server"))
}
