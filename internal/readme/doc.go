// Package readme holds README.md to what the commands really do: its test runs the shell
// quickstart and compares each command's output with the lines the README shows under it.
// It has no code of its own.
package readme
