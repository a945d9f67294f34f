"""Verifies webhook deliveries with the Standard Webhooks reference library.

Usage: verify_webhooks.py SECRET DELIVERIES.json
DELIVERIES.json holds a list of {"id", "timestamp", "signature", "body"}. Prints the number
verified; exits 1 at the first delivery that does not verify, naming it.
"""
import json
import sys

from standardwebhooks.webhooks import Webhook

secret, path = sys.argv[1], sys.argv[2]
webhook = Webhook(secret)
with open(path, encoding="utf-8") as file:
    deliveries = json.load(file)
for delivery in deliveries:
    headers = {
        "webhook-id": delivery["id"],
        "webhook-timestamp": delivery["timestamp"],
        "webhook-signature": delivery["signature"],
    }
    try:
        payload = webhook.verify(delivery["body"], headers)
    except Exception as error:  # the library raises WebhookVerificationError
        print(f"delivery {delivery['id']} does not verify: {error}", file=sys.stderr)
        sys.exit(1)
    if not isinstance(payload, dict) or "type" not in payload:
        print(f"delivery {delivery['id']} is not a typed JSON object", file=sys.stderr)
        sys.exit(1)
print(len(deliveries))
