package mcp

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/researchctx/researchctx/tools"
)

// Input schemas are inferred by the SDK from the tools wire types and stay
// strict (unknown fields rejected). Output schemas are inferred here and made
// compact, since every client puts tools/list into the model's context: an
// output object may carry fields a newer server adds, and the relation card,
// used by three lists, is defined once.

// outputSchema infers the schema of T, drops additionalProperties from
// every object in it, and gives lists the single type "array": the handlers
// never send null for a list (nil lists are omitted or sent as []), and a
// type array such as ["null","array"] is lost on clients that map schemas
// onto a single-type dialect (the MCP Inspector's --strict check warns).
// Which fields are always present is said for the result itself; the
// objects inside it (budget, cards, entries) list their fields and their
// fields' types only, which keeps tools/list short.
func outputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		// The wire types are fixed at compile time; TestRegister covers
		// this for each of them.
		panic(fmt.Sprintf("output schema of %T: %v", *new(T), err))
	}
	open(s, true)
	return s
}

// unlisted are output fields the schemas leave out: marks that only some
// results carry (text recognised from a scanned page's image), which
// docs/contract.md documents and an open schema admits; listing them would
// cost every client's context for what most libraries never show.
var unlisted = []string{"ocr", "confidence", "ocrPages"}

func open(s *jsonschema.Schema, top bool) {
	if s == nil {
		return
	}
	for _, name := range unlisted {
		delete(s.Properties, name)
	}
	s.AdditionalProperties = nil
	if !top {
		s.Required = nil
	}
	if len(s.Types) == 2 && s.Types[0] == "null" && s.Types[1] == "array" {
		s.Types, s.Type = nil, "array"
	}
	// An object inside the result is known by its properties: "type":
	// "object" there says nothing a validator needs (properties apply to
	// objects only) and costs every client's context 16 characters a time.
	if !top && s.Type == "object" && len(s.Properties) > 0 {
		s.Type = ""
	}
	for _, p := range s.Properties {
		open(p, false)
	}
	open(s.Items, false)
}

// relationsOutputSchema is the output schema of paper_relations, with the
// card schema shared by its three lists.
//
// A card's label and citing sentences (label, contexts) are left out of it:
// the schema leaves objects open, so they validate as the extra fields a
// newer server adds, and tools/list stays within the size every client
// pays for at each turn (docs/contract.md documents them).
func relationsOutputSchema() *jsonschema.Schema {
	s := outputSchema[tools.RelationsOutput]()
	card := s.Properties["references"].Items
	for _, name := range []string{"label", "contexts"} {
		delete(card.Properties, name)
	}
	s.Defs = map[string]*jsonschema.Schema{"card": card}
	for _, name := range []string{"references", "citedBy", "related"} {
		s.Properties[name].Items = &jsonschema.Schema{Ref: "#/$defs/card"}
	}
	return s
}

// readOutputSchema is the output schema of context_read without the
// metadata's figures list and a mark's page label, colour and tags:
// tools/list goes into every model's context and is held under 6,000
// characters, the schema is open (a result may carry fields it does not
// list), and the contract describes them.
func readOutputSchema() *jsonschema.Schema {
	s := outputSchema[tools.ReadOutput]()
	delete(s.Properties, "figures")
	for _, name := range []string{"pageLabel", "color", "tags"} {
		delete(s.Properties["marks"].Items.Properties, name)
	}
	return s
}

// readDescription is context_read's description. Its list of modes is the
// tools package's (tools.ReadModes, named as ReadMode.Hint names them), so
// the schema's mode field ("see above") cannot drift from what Read takes.
var readDescription = `Read a granted source or a file in a granted folder by path or citationUri. Modes: ` + modeHints() + `. Folders list entries.`

// modeHints lists the modes of context_read for its description.
func modeHints() string {
	modes := tools.ReadModes()
	hints := make([]string, len(modes))
	for i, m := range modes {
		hints[i] = m.Hint()
	}
	return strings.Join(hints, ", ")
}
