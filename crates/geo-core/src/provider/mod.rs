//! The DeepSeek Anthropic-compatible Messages wire format: URL, headers, request body,
//! response parsing and error mapping. Pure: the shells perform the HTTP request.
