# The fleet console (Sources/GatewayConsole: plain HTML, CSS and ES modules, no build step),
# embedded in the gateway like the browser library and served under /console/.
#
#   make generate-console-embed  regenerate the gateway's embedded copy of the console
#   make console-embed-drift     fail when the embedded copy differs from Sources/GatewayConsole

CONSOLE_EMBED = Sources/GatewayService/Console/ConsoleFiles+Generated.swift
CONSOLE_EMBED_ARGS = --library Sources/GatewayConsole --enum ConsoleFiles --extensions .js,.html,.css \
  --served-under "/console/\` (docs/operations.md)" --what "The fleet console's files" --make-target generate-console-embed

TEST_SUITES += console-embed-drift

.PHONY: generate-console-embed console-embed-drift

generate-console-embed:
	python3 proto/tools/embed_web_client.py $(CONSOLE_EMBED_ARGS) --out $(CONSOLE_EMBED)

console-embed-drift:
	@tmp=$$(mktemp); \
	python3 proto/tools/embed_web_client.py $(CONSOLE_EMBED_ARGS) --out $$tmp && \
	if diff -q $$tmp $(CONSOLE_EMBED) >/dev/null; then \
	  echo "console-embed-drift: the gateway's embedded console matches Sources/GatewayConsole"; rm -f $$tmp; \
	else \
	  echo "console-embed-drift: $(CONSOLE_EMBED) differs from Sources/GatewayConsole. Run 'make generate-console-embed' and commit the result."; rm -f $$tmp; exit 1; \
	fi
