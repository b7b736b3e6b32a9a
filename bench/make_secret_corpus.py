"""Regenerate bench/data/secret_corpus.json: synthetic secrets and look-alike negatives.

The formats follow the public rule sets of secret scanners (gitleaks' rule ids, trufflehog's
detectors, detect-secrets' plugins), named in each entry's `rule`. Every value is made up
here from a seeded random generator: none is, or was ever, a real credential.

    python bench/make_secret_corpus.py   # rewrites the JSON (deterministic)
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path
from typing import Any

VERSION = 1
rng = random.Random(20261201)
UP, LO, DG = string.ascii_uppercase, string.ascii_lowercase, string.digits
AN = UP + LO + DG


def pick(chars: str, n: int) -> str:
    return "".join(rng.choice(chars) for _ in range(n))


def an(n: int) -> str:
    return pick(AN, n)


def hx(n: int) -> str:
    return pick("0123456789abcdef", n)


def b64(nbytes: int) -> str:
    return base64.b64encode(bytes(rng.randrange(256) for _ in range(nbytes))).decode()


def uuid() -> str:
    return f"{hx(8)}-{hx(4)}-4{hx(3)}-a{hx(3)}-{hx(12)}"


def b64url(n: int) -> str:
    return pick(AN + "-_", n)


def jwt() -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(b'{"sub":"u1","iat":1700000000}').decode().rstrip("=")
    return f"{head}.{body}.{b64url(43)}"


def positives() -> list[dict[str, str]]:
    out: list[dict[str, str]] = []

    def add(fmt: str, rule: str, secret: str, text: str) -> None:
        assert secret in text, fmt
        out.append({"format": fmt, "rule": rule, "secret": secret, "text": text})

    s = "AKIA" + pick(UP + DG, 16)
    add("aws_access_key_id", "gitleaks:aws-access-token", s, f"export AWS_ACCESS_KEY_ID={s}")
    s = pick(AN + "/+", 40)
    add("aws_secret_key", "gitleaks:aws-secret", s, f"aws_secret_access_key = {s}")
    s = "ASIA" + pick(UP + DG, 16)
    add("aws_session_key_id", "trufflehog:AWSSessionKey", s, f"creds: {s} expires soon")
    s = "AIza" + pick(AN + "-_", 35)
    add("gcp_api_key", "gitleaks:gcp-api-key", s, f"https://maps.googleapis.com/x?key={s}")
    s = "ya29." + b64url(60)
    add("google_oauth_access", "gitleaks:gcp-oauth", s, f"token {s}")
    s = "ghp_" + an(36)
    add("github_pat_classic", "gitleaks:github-pat", s, f"git clone https://x:{s}@github.com/o/r")
    s = "github_pat_" + an(22) + "_" + an(59)
    add("github_pat_fine", "gitleaks:github-fine-grained-pat", s, f"GH_TOKEN={s}")
    s = "gho_" + an(36)
    add("github_oauth", "gitleaks:github-oauth", s, f"oauth {s}")
    s = "ghs_" + an(36)
    add("github_app", "gitleaks:github-app-token", s, f"app token is {s}")
    s = "glpat-" + b64url(20)
    add("gitlab_pat", "gitleaks:gitlab-pat", s, f"GITLAB_TOKEN: {s}")
    s = "xoxb-" + pick(DG, 12) + "-" + pick(DG, 12) + "-" + an(24)
    add("slack_bot", "gitleaks:slack-bot-token", s, f"SLACK={s}")
    s = "xoxp-" + pick(DG, 12) + "-" + pick(DG, 12) + "-" + pick(DG, 12) + "-" + hx(32)
    add("slack_user", "gitleaks:slack-user-token", s, s)
    s = "xapp-1-A" + pick(UP + DG, 10) + "-" + pick(DG, 13) + "-" + hx(64)
    add("slack_app", "gitleaks:slack-app-token", s, f"app={s}")
    s = f"https://hooks.slack.com/services/T{pick(UP + DG, 8)}/B{pick(UP + DG, 10)}/{an(24)}"
    add("slack_webhook", "gitleaks:slack-webhook-url", s, f"curl -X POST {s}")
    s = "sk_live_" + an(24)
    add("stripe_secret", "gitleaks:stripe-access-token", s, f"Stripe.api_key = '{s}'")
    s = "rk_live_" + an(24)
    add("stripe_restricted", "gitleaks:stripe-access-token", s, f"key {s}")
    s = "whsec_" + an(32)
    add("stripe_webhook", "trufflehog:StripeWebhook", s, f"endpoint secret {s}")
    s = "SG." + b64url(22) + "." + b64url(43)
    add("sendgrid", "gitleaks:sendgrid-api-token", s, f"SENDGRID_API_KEY={s}")
    s = "SK" + hx(32)
    add("twilio", "gitleaks:twilio-api-key", s, f"twilio key {s}")
    s = "npm_" + an(36)
    add("npm", "gitleaks:npm-access-token", s, f"//registry.npmjs.org/:_authToken={s}")
    s = "pypi-AgEIcHlwaS5vcmc" + b64url(60)
    add("pypi", "gitleaks:pypi-upload-token", s, f"password = {s}")
    s = "sk-proj-" + b64url(48)
    add("openai_project", "gitleaks:openai-api-key", s, f"OPENAI_API_KEY={s}")
    s = "sk-ant-api03-" + b64url(93) + "AA"
    add("anthropic", "gitleaks:anthropic-api-key", s, f"client = Anthropic(api_key='{s}')")
    s = "hf_" + an(34)
    add("huggingface", "gitleaks:huggingface-access-token", s, f"huggingface-cli login --token {s}")
    s = "shpat_" + hx(32)
    add("shopify", "gitleaks:shopify-access-token", s, f"X-Shopify-Access-Token: {s}")
    s = "dop_v1_" + hx(64)
    add("digitalocean", "gitleaks:digitalocean-pat", s, f"doctl auth init -t {s}")
    s = jwt()
    add("jwt", "gitleaks:jwt", s, f'{{"id_token": "{s}"}}')
    s = "key-" + hx(32)
    add("mailgun", "gitleaks:mailgun-private-api-token", s, f"api: {s}")
    s = "AGE-SECRET-KEY-1" + pick("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
    add("age", "gitleaks:age-secret-key", s, f"# created: 2026-01-01\n{s}\n")
    s = b64(64)
    add(
        "azure_storage_conn",
        "detect-secrets:AzureStorageKeyDetector",
        s,
        f"DefaultEndpointsProtocol=https;AccountName=acct1;AccountKey={s};EndpointSuffix=core.windows.net",
    )
    s = b64(32)
    add(
        "azure_servicebus_conn",
        "gitleaks:azure-ad-client-secret",
        s,
        f"Endpoint=sb://ns1.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey={s}",
    )
    s = pick(LO + DG, 14)
    add("netrc", "trufflehog:Netrc", s, f"machine api.example.com login bob password {s}")
    s = pick(LO + DG, 12)
    add("sshpass", "gitleaks:generic (cli)", s, f"sshpass -p {s} ssh deploy@10.0.0.5")
    s = pick(LO + DG, 11)
    add("mysql_cli", "gitleaks:generic (cli)", s, f"mysql -u root -p{s} -h db prod")
    s = hx(32)
    add(
        "sentry_dsn",
        "gitleaks:sentry-access-token",
        s,
        f"SENTRY_DSN=https://{s}@o12345.ingest.sentry.io/678",
    )
    s = "sntrys_" + b64url(60)
    add("sentry_org_token", "gitleaks:sentry-org-token", s, f"auth {s}")
    s = pick(LO + DG, 13)
    add(
        "password_double_encoded_json",
        "detect-secrets:KeywordDetector",
        s,
        json.dumps(json.dumps({"user": "bob", "password": s})),
    )
    s = pick(LO + DG, 10)
    add("password_json", "detect-secrets:KeywordDetector", s, json.dumps({"password": s}))
    s = pick(LO + DG, 12)
    add("password_env", "detect-secrets:KeywordDetector", s, f"DB_PASSWORD={s}")
    s = pick(LO + DG, 12)
    add("password_yaml", "detect-secrets:KeywordDetector", s, f"db:\n  password: {s}\n")
    s = pick(LO + DG, 9)
    add("password_flag", "detect-secrets:KeywordDetector", s, f"psql --password {s} -h x")
    s = pick(LO + DG, 10)
    add("postgres_url", "detect-secrets:BasicAuthDetector", s, f"postgres://app:{s}@db:5432/x")
    s = pick(LO + DG, 10)
    add("mongodb_srv", "gitleaks:generic (url)", s, f"mongodb+srv://app:{s}@c0.mongodb.net/db")
    s = pick(LO + DG, 10)
    add("redis_url", "detect-secrets:BasicAuthDetector", s, f"REDIS_URL=redis://:{s}@cache:6379/0")
    s = pick(LO + DG, 10)
    add("amqp_url", "detect-secrets:BasicAuthDetector", s, f"amqp://guest:{s}@mq:5672/")
    s = b64url(40)
    add("bearer_header", "trufflehog:generic bearer", s, f"Authorization: Bearer {s}")
    s = b64(18)
    add("basic_header", "detect-secrets:BasicAuthDetector", s, f"Authorization: Basic {s}")
    s = an(32)
    add("x_api_key_header", "detect-secrets:KeywordDetector", s, f"x-api-key: {s}")
    s = an(24)
    add("api_key_query", "detect-secrets:KeywordDetector", s, f"GET /v1/data?api_key={s}&page=2")
    s = an(28)
    add("client_secret", "gitleaks:generic-api-key", s, f'client_secret: "{s}"')
    s = "-----BEGIN RSA PRIVATE KEY-----\n" + b64(96) + "\n-----END RSA PRIVATE KEY-----"
    add("rsa_private_key", "detect-secrets:PrivateKeyDetector", s.splitlines()[1], s)
    s = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + b64(96) + "\n-----END OPENSSH PRIVATE KEY-----"
    add("openssh_private_key", "gitleaks:private-key", s.splitlines()[1], s)
    s = (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        + b64(96)
        + "\n-----END PGP PRIVATE KEY BLOCK-----"
    )
    add("pgp_private_key", "gitleaks:private-key", s.splitlines()[2], s)
    s = "hvs." + an(24)
    add("vault_token", "gitleaks:vault-service-token", s, f"VAULT_TOKEN={s}")
    s = an(14) + ".atlasv1." + an(60)
    add("terraform_cloud", "gitleaks:hashicorp-tf-api-token", s, f'token = "{s}"')
    s = "dapi" + hx(32)
    add("databricks", "gitleaks:databricks-api-token", s, f"databricks token {s}")
    s = "lin_api_" + an(40)
    add("linear", "gitleaks:linear-api-key", s, f"LINEAR={s}")
    s = "PMAK-" + hx(24) + "-" + hx(34)
    add("postman", "gitleaks:postman-api-token", s, f"postman key {s}")
    s = "NRAK-" + pick(UP + DG, 27)
    add("newrelic", "gitleaks:new-relic-user-api-key", s, f"NEW_RELIC={s}")
    s = "glsa_" + an(32) + "_" + hx(8)
    add("grafana_sa", "gitleaks:grafana-service-account-token", s, f"grafana {s}")
    s = pick(DG, 10) + ":AA" + b64url(33)
    add(
        "telegram_bot",
        "gitleaks:telegram-bot-api-token",
        s,
        f"https://api.telegram.org/bot{s}/getMe",
    )
    s = "sq0atp-" + b64url(22)
    add("square", "detect-secrets:SquareOAuthDetector", s, f"square {s}")
    s = "dt0c01." + pick(UP + DG, 24) + "." + pick(UP + DG, 64)
    add("dynatrace", "gitleaks:dynatrace-api-token", s, f"Api-Token {s}")
    s = "pul-" + hx(40)
    add("pulumi", "gitleaks:pulumi-api-token", s, f"PULUMI_ACCESS_TOKEN={s}")
    s = "rubygems_" + hx(48)
    add("rubygems", "gitleaks:rubygems-api-token", s, f"gem key {s}")
    s = "pscale_tkn_" + b64url(43)
    add("planetscale", "gitleaks:planetscale-api-token", s, f"pscale {s}")
    s = "dckr_pat_" + b64url(27)
    add("docker_hub", "gitleaks:docker-hub-pat", s, f"docker login -u bob -p {s}")
    s = "AKCp" + an(69)
    add("artifactory", "detect-secrets:ArtifactoryDetector", s, f"X-JFrog-Art-Api: {s}")
    s = hx(32) + "-us12"
    add("mailchimp", "detect-secrets:MailchimpDetector", s, f"mailchimp key {s}")
    s = "doo_v1_" + hx(64)
    add("digitalocean_oauth", "gitleaks:digitalocean-access-token", s, f"do token {s}")
    s = "EAACEdEose0cBA" + an(40)
    add("facebook_token", "gitleaks:facebook-access-token", s, f"fb access {s}")
    s = an(40)
    add("cookie_session", "detect-secrets:KeywordDetector", s, f"Cookie: session={s}")
    s = an(32)
    add("private_token_header", "gitleaks:generic-api-key", s, f"PRIVATE-TOKEN: {s}")
    return out


def negatives() -> list[str]:
    return [
        "PWD=/home/user/project",
        "OLDPWD=/home/user/src/app",
        "cd $PWD && make test",
        "max_tokens=4096 temperature=0.2",
        "token_count: 1532",
        "password_policy: min length 12",
        "Use --password-file ~/.pgpass to avoid prompts",
        "mysql -u root -p -h db",
        "ssh -p 2222 deploy@10.0.0.5",
        "sshpass is not installed",
        "git commit -m 'rotate the api key monthly'",
        "The key-value store holds 3 entries",
        "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "uuid 123e4567-e89b-12d3-a456-426614174000",
        "https://github.com/openai/openai-python/blob/main/README.md",
        "https://user@example.com/path",
        "postgres://localhost:5432/app",
        "redis://cache:6379/0",
        "Authorization header missing",
        "Bearer tokens expire after 1h",
        "TraceStepToStepRecordConverterFactory",
        "python/crs/_sanitizer.py:42: def is_secret_key(key: str) -> bool:",
        "version 1.2.3-beta.4+build.567",
        "AccountName=acct1;EndpointSuffix=core.windows.net",
        "machine api.example.com login bob",
        "the password is stored in the vault, not here",
        "author: Jane Doe <jane@example.com>",
        "SELECT id, name FROM users WHERE active = 1",
        "ERROR: connection refused (port 5432)",
        "ls -la /usr/local/bin | grep python3",
        '{"user": "bob", "role": "admin", "pwd_changed": true}',
        "Key-Value pairs: a=1, b=2",
        "age: 42",
        "sk-learn is not the package name, scikit-learn is",
        "key: value",
        "export PATH=/usr/local/bin:$PATH",
        "DefaultEndpointsProtocol=https",
        "sentry.io/organizations/acme/issues/",
        "see https://docs.python.org/3/library/re.html#re.sub",
    ]


def main() -> None:
    data: dict[str, Any] = {
        "version": VERSION,
        "note": (
            "Synthetic secrets (seeded random, never real) in the formats of public secret-"
            "scanner rules (gitleaks, trufflehog, detect-secrets), and look-alike negatives "
            "that must come back unchanged. Regenerate with bench/make_secret_corpus.py."
        ),
        "positives": positives(),
        "negatives": [{"text": t} for t in negatives()],
    }
    path = Path(__file__).parent / "data" / "secret_corpus.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{path}: {len(data['positives'])} positives, {len(data['negatives'])} negatives")


if __name__ == "__main__":
    main()
