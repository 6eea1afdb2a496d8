// Package modeltext writes a graph ([Graph]), a delta ([Delta]) and a site
// index ([Index]) in a compact text form for a language model, with the
// gate's verdict on each action in a few words ([Verdict]). It is the text
// content of the MCP bridge's tool results (their structuredContent keeps
// the JSON) and the default output of `affordances inspect`.
//
// It loses nothing a model needs: every string and number of the JSON is
// in it (TestNothingLost), except what the protocol fixes ("v", the root
// input schema's type object and additionalProperties false, and $schema)
// and what an unavailable action has besides its name and reason: a page
// shows a disabled button and why, and a model reads the action again
// once it can call it.
// Every string of the site passes through [aal.Visible]: it is one line,
// with nothing hidden. It is data, never instructions; the bridge says so
// on the line above it.
//
// The form, line by line (docs/model-text.md has the full grammar):
//
//	page PATH [(route ROUTE)]
//	entities: | entities: none
//	  NAME: VALUE
//	  NAME (N): COL | COL ...         records: an array of objects, as a table
//	    CELL | CELL ...               an empty cell: the row lacks the key
//	  NAME.FIELD (N): COL | ...       an object's records, after its other fields
//	actions: | actions: none
//	  NAME(INPUT) [-> OUTPUT]  [EXPOSE[, read-only]]  [effects: E, ... | effects: none]
//	      [guard: "TEXT"]  [gate: VERDICT]
//	    # DESCRIPTION
//	  UNAVAILABLE ["REASON"]: NAME, ...   the unavailable actions, a line a reason
//	nav: TO ["LABEL"] [(when "TEXT")], ...
//	md:
//	  LINE
//
// A NAME (an action's, an effect, an EXPOSE, an auth METHOD, an error
// CODE, a type) is one word: bare when it is letters, digits, _, . and -
// (as the protocol's action names are), "quoted" otherwise, and "none"
// always quoted ([Name]). A PATH (a page, a ROUTE, a nav TO, a redirect,
// the mcp endpoint, an approval URL) is one word too: bare when it has no
// space, quote, comma or backslash, "quoted" otherwise ([Path]). So no
// name or path of the site adds a word, a tag, a link, a label or a line
// of the text's own; free text (a description, a guard, a label, a reason,
// a message) is quoted or is the rest of its line.
//
// A VALUE is null, true, false, a number as the site wrote it, a string
// bare when nothing could misread it and "quoted" otherwise (\" a quote;
// \\ a backslash and \u200b an invisible character, from [aal.Visible]),
// [A, B] or {KEY: VALUE, ...} with keys sorted.
//
// INPUT lists the properties of the input schema: NAME: TYPE when
// required, NAME?: TYPE when not. A TYPE is string, integer, number,
// boolean, null, {NAME: TYPE, ...}, []TYPE, A|B (types or enum values),
// =VALUE (a const), (A | B) (anyOf), one of (A | B), (A & B) (allOf), ref
// PATH; then its bounds and the rest: 1-40 chars, 1-99, >=1, <=5 items,
// >0 and <100 (exclusive), step 0.01, unique, format email, /PATTERN/
// (/"PATTERN"/ when it holds a space or a quote), =1 (default), e.g. [..]
// (examples), deprecated, /* TITLE */ /* DESCRIPTION */. A keyword without
// a word of its own follows as +{KEYWORD: VALUE}.
//
// An OUTPUT that holds a type an earlier action's output spelled out
// (40 characters or more) names it instead: (NAME's output).
//
// VERDICT is ask: CLASSES [(AMOUNT)], the classes a person must approve;
// or refuse: the gate's first reason. An action without one is allowed.
//
// A delta:
//
//	ok | error CODE: MESSAGE | not ok
//	  at "POINTER": MESSAGE           each issue of an invalid_input error
//	message: TEXT
//	output: VALUE
//	changed:                          as entities; null: the entity is gone
//	  NAME (N rows, by KEY)[: removed K, ...]   with DeltaSince, a table the model was shown:
//	  NAME added (N): COL | ...                 its rows removed (by their KEY), added,
//	    CELL | ...
//	  NAME changed (N): KEY | COL | ...         and changed (the KEY, then the cells that changed),
//	    CELL | ...
//	  NAME order: K, ...                        and the rows' new order when they moved
//	  NAME.FIELD: VALUE | NAME.FIELD: gone      an object's fields that changed
//	  NAME: unchanged
//	actions added or changed:         as actions, without the gate
//	actions removed: NAME, ...
//	redirect: PATH
//	approval: a person approves on URL until RFC3339
//
// A site index:
//
//	site ["NAME"]  auth: METHOD, ... | none  [mcp: PATH]
//	route ROUTE [# DESCRIPTION]
//	  ACTION as in a graph, without availability or gate
package modeltext
