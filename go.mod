module github.com/trailboss/trailboss

go 1.26.0

require (
	github.com/fsnotify/fsnotify v1.10.1
	github.com/go-chi/chi/v5 v5.5.0
	github.com/mattn/go-sqlite3 v1.14.52
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sync v0.24.0
)

require (
	golang.org/x/sys v0.38.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
