"""Model providers: one request in, one streamed assistant turn out."""
