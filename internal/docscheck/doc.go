// Package docscheck checks Markdown documentation against the code it
// describes, so that the docs cannot rot unnoticed:
//
//   - every fenced ```go block compiles (CompileGo): a block with a package
//     clause is a file of its own; the other blocks of a page form one
//     package, statement fragments wrapped in a function, missing imports
//     of known packages added;
//   - every consim command line of a fenced sh, bash, shell or console
//     block parses (Commands and CheckCommands, given the command's own
//     parser: subcommands and flags must exist);
//   - every relative link and image points at a file that exists, and every
//     #anchor at a heading (or an <a id>) of its page (CheckLinks).
//
// A block the checker must leave alone carries a marker on the line before
// its fence that says why: <!-- docs: not compiled: REASON --> or
// <!-- docs: not checked: REASON -->; a marker without a reason is itself
// a problem.
//
// Errors are Problems positioned at the page's line. The package reads
// files and runs the go command; it imports nothing of consim, so the
// command's test (cmd/consim) can run it over the repository with the
// real command tree.
package docscheck
