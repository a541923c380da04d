module benchbook/servers

go 1.26

require github.com/gorilla/mux v1.8.1 // indirect
