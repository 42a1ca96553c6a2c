// Package dockerfiles holds no code: its test reads the Dockerfile, the
// compose file, crowns.env.example and the repository's .dockerignore and
// checks what a working deployment needs of them (no Docker engine or
// linter is needed), as CI runs no Docker.
package dockerfiles
