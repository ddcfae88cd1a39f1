module github.com/researchctx/researchctx

go 1.26.0

require (
	github.com/coder/acp-go-sdk v0.13.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/pdfcpu/pdfcpu v0.15.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
