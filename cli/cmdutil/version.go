// Package cmdutil is what the lab's commands share: exit codes and the
// errors that choose them, colour, flag limits, reading reports safely,
// printed commands, run directories and the text helpers of the layouts.
// It imports no command.
package cmdutil

// Version is the lab's version, printed by --version and in every report header.
const Version = "0.3.0"
