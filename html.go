package affordances

import "html/template"

// LinkTag is the <link> element an HTML page with a graph carries in its
// head, pointing agents at the graph (seed 000, "Discovery").
const LinkTag template.HTML = `<link rel="affordances" href="?affordances=1">`

// TemplateFuncs returns the template functions of this package, for
// [template.Template.Funcs]:
//
//	{{affordancesLink}}  the <link rel="affordances"> element ([LinkTag])
//	{{aal "addToCart"}}  the data-aal="add-to-cart" attribute of the element
//	                     an action's affordance selects (CLARIFICATIONS 9)
//
// The AAL <link> and inline fragment of a page depend on the request: see
// [AALLink] and [AALScript].
func TemplateFuncs() template.FuncMap {
	return template.FuncMap{
		"affordancesLink": func() template.HTML { return LinkTag },
		"aal": func(action string) template.HTMLAttr {
			return template.HTMLAttr(`data-aal="` + template.HTMLEscapeString(AALID(action)) + `"`)
		},
	}
}
