// Package profiling serves the Go runtime's own profiles (net/http/pprof) on a side
// listener, apart from the server's port, so that benchbook can record a CPU profile
// of a server under load without changing what the measured port serves.
//
// A server calls Serve with its -pprof flag; an empty address (the default, and
// every measured run) serves nothing.
package profiling

import (
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/pprof"
)

// Flag is the help text of the -pprof flag every server declares.
const Flag = "serve net/http/pprof on this loopback host:port (empty: off)"

// Serve listens on addr, which must be a loopback host:port, and serves the pprof
// handlers there in the background. The listener is open when Serve returns, so a
// profile can be requested at once. An empty addr does nothing.
func Serve(addr string) error {
	if addr == "" {
		return nil
	}
	if err := checkLoopback(addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("pprof listener: %w", err)
	}
	go func() {
		log.Printf("pprof on %s", ln.Addr())
		if err := http.Serve(ln, Handler()); err != nil {
			log.Printf("pprof listener stopped: %v", err)
		}
	}()
	return nil
}

// Handler is the pprof handlers on a mux of their own (not http.DefaultServeMux).
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// checkLoopback refuses an address another machine could reach: profiles show the
// server's code and its load.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-pprof %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-pprof %q: give a loopback address such as 127.0.0.1:6060", addr)
	}
	return nil
}
