// Command fanout is seed 003's server: gorilla/mux, a person's name and order count
// looked up by id, either in two goroutines (/cc/{id}) or one after the other
// (/sc/{id}), by a middleware that passes the values to the handler in the context.
//
// The lookups scan the whole table without stopping at a match, as in the article;
// the work query parameter (or -work) repeats each scan to make it costlier, which
// shows when running the two lookups concurrently starts to pay off.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gorilla/mux"

	"benchbook/servers/internal/profiling"
)

var (
	people = [][]string{
		{"1", "Tiago Temporin"},
		{"2", "João Silva"},
		{"3", "Mateus Cardoso"},
		{"4", "Maria Lina"},
		{"5", "Camila Manga"},
		{"6", "Joice Santos"},
		{"7", "Lucas Leal"},
		{"8", "Vanessa da Terra"},
		{"9", "Mateus de Morais"},
		{"10", "Maria Luiza"},
	}
	orders = [][]string{
		{"1", "5"}, {"2", "10"}, {"3", "0"}, {"4", "0"}, {"5", "2"},
		{"6", "9"}, {"7", "3"}, {"8", "15"}, {"9", "3"}, {"10", "7"},
	}
)

type ctxKey string

const (
	nameKey   ctxKey = "name"
	ordersKey ctxKey = "orders"
)

// lookup scans table work times for id, without breaking at a match.
func lookup(table [][]string, id string, work int) (value string) {
	for range work {
		for _, row := range table {
			if id == row[0] {
				value = row[1]
			}
		}
	}
	return value
}

// fetch is the article's middleware: both lookups concurrently for paths containing
// "cc", sequentially otherwise.
func fetch(defaultWork int) mux.MiddlewareFunc {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			work := defaultWork
			if q := r.URL.Query().Get("work"); q != "" {
				n, err := strconv.Atoi(q)
				if err != nil || n < 1 {
					http.Error(w, "work must be a whole number >= 1", http.StatusBadRequest)
					return
				}
				work = n
			}
			id := mux.Vars(r)["id"]
			var name, total string
			if strings.Contains(r.URL.Path, "cc") {
				names, totals := make(chan string, 1), make(chan string, 1)
				var wg sync.WaitGroup
				wg.Add(2)
				go func() { defer wg.Done(); names <- lookup(people, id, work) }()
				go func() { defer wg.Done(); totals <- lookup(orders, id, work) }()
				wg.Wait()
				name, total = <-names, <-totals
			} else {
				name, total = lookup(people, id, work), lookup(orders, id, work)
			}
			ctx := context.WithValue(r.Context(), nameKey, name)
			ctx = context.WithValue(ctx, ordersKey, total)
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// nameOrders writes the article's sentence; unknown ids are 404 rather than the
// article's sentence with empty values.
func nameOrders(w http.ResponseWriter, r *http.Request) {
	name, _ := r.Context().Value(nameKey).(string)
	total, _ := r.Context().Value(ordersKey).(string)
	if name == "" {
		http.Error(w, "unknown id", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "Olá %s, seu total de pedidos é de %s\n", name, total)
}

func newRouter(work int) *mux.Router {
	r := mux.NewRouter()
	r.Use(fetch(work))
	r.HandleFunc("/cc/{id}", nameOrders)
	r.HandleFunc("/sc/{id}", nameOrders)
	return r
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "listen address (host:port)")
	pprofAddr := flag.String("pprof", "", profiling.Flag)
	work := flag.Int("work", 1, "default number of scans per lookup (the article: 1)")
	flag.Parse()
	if err := profiling.Serve(*pprofAddr); err != nil {
		log.Fatal(err)
	}
	if *work < 1 {
		log.Fatalf("-work must be >= 1, got %d", *work)
	}
	log.Printf("fanout listening on %s (work %d)", *addr, *work)
	log.Fatal(http.ListenAndServe(*addr, newRouter(*work)))
}
