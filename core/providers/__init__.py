"""Model providers: one request in, one streamed assistant turn out.

- ``anthropic``: The Anthropic provider: one streamed Messages API request per assistant turn.
- ``anthropic_stream``: One streamed Messages API answer assembled from its raw events, in linear time.
- ``base``: The contract every model provider keeps.
- ``claude_code``: The Claude Code provider: the ``claude`` command line, run headless in a staging copy.
- ``factory``: Choosing the provider for a run, including the no-key demo replay.
- ``figures``: Usage and cost figures as a provider reports them, checked before anything stores them.
- ``openai``: The OpenAI-compatible provider: one streamed Chat Completions request per assistant turn.
- ``openai_stream``: One streamed Chat Completions answer, assembled from its chunks in linear time.
- ``pacing``: Waits between retries, kept within the request's total deadline and said aloud.
- ``redact``: Keys taken out of text a server sends back before it is shown or stored.
- ``scripted``: Replays recorded model turns: the bundled demo, past runs, and tests.
- ``turn_size``: A cap on how much one assistant turn may stream, counted as it arrives.
"""
