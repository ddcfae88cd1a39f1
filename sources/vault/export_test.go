package vault

// NewLibrary returns a Library over an open Vault, for the tests: hosts
// open one with OpenLibrary.
var NewLibrary = newLibrary
