//! Unit tests of redaction: every detector, the rule files, merging, idempotency and cost.

use super::assignment::assignment_kind;
use super::*;
use serde_json::json;

fn redacted(text: &str) -> String {
    redact_text(text).map_or_else(|| text.to_owned(), |(out, _)| out)
}

fn assert_redacted(text: &str, expected: &str) {
    assert_eq!(redacted(text), expected, "input: {text:?}");
}

fn assert_untouched(text: &str) {
    assert_eq!(redact_text(text), None, "input: {text:?}");
}

const PEM_BODY: &str = "MIIEowIBAAKCAQEAx4f1\nq8Zk2b0aZ9yQ==";

#[test]
fn kind_names_are_snake_case() {
    assert_eq!(SecretKind::PrivateKey.name(), "private_key");
    assert_eq!(SecretKind::AwsSecretKey.name(), "aws_secret_key");
    assert_eq!(SecretKind::BearerToken.name(), "bearer_token");
}

#[test]
fn shortest_secrets_are_found() {
    assert_redacted("pwd=abcd", "pwd=[REDACTED:password]");
    assert_redacted("xoxb-123456789a", "[REDACTED:slack_token]");
    assert_untouched("call_8f3a2b1c");
}

#[test]
fn pem_block_is_replaced_whole() {
    let text = format!(
        "key:\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\nok"
    );
    assert_redacted(&text, "key:\n[REDACTED:private_key]\nok");
    let openssh = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----"
    );
    assert_redacted(&openssh, "[REDACTED:private_key]");
}

#[test]
fn pem_block_with_escaped_newlines_is_replaced() {
    let text = r#"{"content":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\nkqhkiG9w0BAQ==\n-----END PRIVATE KEY-----\n","path":"k.pem"}"#;
    assert_redacted(
        text,
        r#"{"content":"[REDACTED:private_key]\n","path":"k.pem"}"#,
    );
}

#[test]
fn pem_begin_without_end_is_redacted_to_end_of_text() {
    let text = format!("cat id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}");
    assert_redacted(&text, "cat id_ed25519\n[REDACTED:private_key]");
}

#[test]
fn pem_public_key_and_certificate_are_kept() {
    assert_untouched("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0B\n-----END PUBLIC KEY-----");
    assert_untouched(
        "-----BEGIN CERTIFICATE-----\nMIIBIjANBgkqhkiG9w0B\n-----END CERTIFICATE-----",
    );
}

#[test]
fn aws_access_key_ids() {
    assert_redacted(
        "id AKIAIOSFODNN7EXAMPLE here",
        "id [REDACTED:aws_access_key] here",
    );
    assert_redacted("\"ASIAY34FZKBOKMUTVV7A\"", "\"[REDACTED:aws_access_key]\"");
    assert_untouched("AKIAIOSFODNN7EXAMPLEXX is too long");
    assert_untouched("XAKIAIOSFODNN7EXAMPLE glued to a word");
    assert_untouched("AKIAshort");
}

#[test]
fn aws_secret_access_key_assignment() {
    assert_redacted(
        "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "export AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key]",
    );
    assert_redacted(
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
        "aws_secret_access_key = [REDACTED:aws_secret_key]\n",
    );
    assert_untouched("aws_secret_access_key = os.environ['X']");
}

#[test]
fn github_tokens() {
    let classic = format!("ghp_{}", "a1B2c3D4e5".repeat(4));
    assert_redacted(&format!("token {classic}"), "token [REDACTED:github_token]");
    let fine_grained = format!("github_pat_11ABCDEFG0{}", "x_Y9".repeat(10));
    assert_redacted(&fine_grained, "[REDACTED:github_token]");
    assert_untouched("ghp_short and github_pat_tooShort");
}

#[test]
fn gitlab_tokens() {
    assert_redacted(
        "glpat-xYz12345678901234567890 x",
        "[REDACTED:gitlab_token] x",
    );
    assert_redacted("gldt-AbCdEfGhIjKlMnOpQrStUv", "[REDACTED:gitlab_token]");
    assert_untouched("glpat-short");
}

#[test]
fn openai_keys() {
    assert_redacted(
        "OPENAI_API_KEY=sk-abcdefghij0123456789KLMN",
        "OPENAI_API_KEY=[REDACTED:openai_api_key]",
    );
    assert_redacted(
        "sk-proj-Ab3_dEf-GhIjKlMnOpQrStUvWx",
        "[REDACTED:openai_api_key]",
    );
    assert_redacted(
        "sk-svcacct-Ab3dEfGhIjKlMnOpQrStUvWx",
        "[REDACTED:openai_api_key]",
    );
    assert_untouched("pip install scikit-learn sk-learn");
    assert_untouched("run the task-abcdefghij0123456789KLMN job");
    assert_untouched("the disk-usage report");
}

#[test]
fn anthropic_keys_take_precedence_over_openai() {
    let key = format!("sk-ant-api03-{}", "Zx9_-Qw8".repeat(4));
    assert_redacted(
        &format!("ANTHROPIC_API_KEY={key}"),
        "ANTHROPIC_API_KEY=[REDACTED:anthropic_api_key]",
    );
    let oauth = format!("sk-ant-oat01-{}", "Zx9Qw8Er".repeat(4));
    assert_redacted(&oauth, "[REDACTED:anthropic_api_key]");
    assert_untouched("sk-ant-api03-short");
}

#[test]
fn google_api_keys() {
    assert_redacted(
        "key=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q&x",
        "key=[REDACTED:google_api_key]&x",
    );
    assert_untouched("AIzaTooShort");
}

#[test]
fn slack_tokens_and_webhooks() {
    assert_redacted("xoxb-1234567890-abcdefghij", "[REDACTED:slack_token]");
    assert_redacted(
        "curl https://hooks.slack.com/services/T000/B000/XXXXabcd1234 -d x",
        "curl [REDACTED:slack_webhook] -d x",
    );
    assert_untouched("xoxb-short");
    assert_untouched("see https://hooks.slack.com/ for docs");
}

#[test]
fn other_provider_tokens() {
    assert_redacted("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "[REDACTED:stripe_key]");
    assert_redacted(&format!("npm_{}", "aB3".repeat(12)), "[REDACTED:npm_token]");
    assert_redacted(
        &format!("HF_TOKEN=hf_{}", "aB3".repeat(12)),
        "HF_TOKEN=[REDACTED:huggingface_token]",
    );
    assert_untouched("npm_config_cache and hf_hub_download");
}

#[test]
fn jwts() {
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    assert_redacted(&format!("t={jwt};"), "t=[REDACTED:jwt];");
    assert_untouched("eyJhbGciOiJIUzI1NiJ9 alone is only a header");
}

#[test]
fn bearer_tokens_keep_the_scheme() {
    assert_redacted(
        "Authorization: Bearer abc123DEF456ghi789.jkl",
        "Authorization: Bearer [REDACTED:bearer_token]",
    );
    assert_redacted(
        "-H 'authorization: bearer 0123456789abcdefXYZ'",
        "-H 'authorization: bearer [REDACTED:bearer_token]'",
    );
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N";
    assert_redacted(&format!("Bearer {jwt}"), "Bearer [REDACTED:jwt]");
    assert_untouched("The bearer authentication-mechanism is described in RFC 6750");
    assert_untouched("Authorization: Bearer ${TOKEN}");
    assert_untouched("Bearer short123");
}

#[test]
fn url_credentials() {
    assert_redacted(
        "postgres://app:s3cr3tPass@db:5432/app",
        "postgres://app:[REDACTED:url_credential]@db:5432/app",
    );
    assert_redacted(
        "redis://:p4ssw0rdXYZ@localhost:6379/0",
        "redis://:[REDACTED:url_credential]@localhost:6379/0",
    );
    assert_untouched("https://example.com:8443/path@v2");
    assert_untouched("git clone https://user@github.com/org/repo");
    assert_untouched("postgres://app:${DB_PASSWORD}@db/app");
}

#[test]
fn password_assignments_keep_key_and_separator() {
    assert_redacted("password=hunter2!x", "password=[REDACTED:password]");
    assert_redacted(
        "DB_PASSWORD: supersecret",
        "DB_PASSWORD: [REDACTED:password]",
    );
    assert_redacted(
        "let password = \"hunter22\";",
        "let password = \"[REDACTED:password]\";",
    );
    assert_redacted(
        "'passwd' => 'abcd1234',",
        "'passwd' => '[REDACTED:password]',",
    );
    assert_redacted(
        "Server=db;Uid=sa;Pwd=Str0ngPass;",
        "Server=db;Uid=sa;Pwd=[REDACTED:password];",
    );
    assert_redacted(
        "?user=bob&password=letmein1&x=1",
        "?user=bob&password=[REDACTED:password]&x=1",
    );
}

#[test]
fn secret_assignments_in_json_and_escaped_json() {
    assert_redacted(
        r#"{"api_secret": "abc123def"}"#,
        r#"{"api_secret": "[REDACTED:secret]"}"#,
    );
    assert_redacted(
        r#"{\"client_secret\":\"abc123def\"}"#,
        r#"{\"client_secret\":\"[REDACTED:secret]\"}"#,
    );
    assert_redacted("API_KEY=abcd1234efgh", "API_KEY=[REDACTED:secret]");
    assert_redacted(
        "access_token: 'ya29.a0AfH6SMB'",
        "access_token: '[REDACTED:secret]'",
    );
    assert_redacted(
        "SECRET_KEY := \"django-insecure-x8\"",
        "SECRET_KEY := \"[REDACTED:secret]\"",
    );
    assert_redacted(
        "SECRET_KEY_BASE=abc123abc123",
        "SECRET_KEY_BASE=[REDACTED:secret]",
    );
    assert_redacted(
        "?access_token=ya29.a0AfH6SMBx&expires=3600",
        "?access_token=[REDACTED:secret]&expires=3600",
    );
}

#[test]
fn assignment_placeholders_and_code_are_kept() {
    for text in [
        "password=",
        "password: ********",
        "password = os.environ['DB_PASSWORD']",
        "password = os.getenv(\"DB_PASSWORD\")",
        "password=${DB_PASSWORD}",
        "password=$DB_PASSWORD",
        "password: <password>",
        "password: \"{{ .Values.db.password }}\"",
        "password = getpass.getpass()",
        "password = args.password",
        "password: String,",
        "fn login(password: &str) {}",
        "api_key: Option<String>",
        "password=password",
        "password == \"abc\"",
        "password: \"Enter your password\"",
        "client_secret=None",
        "password: [REDACTED:password]",
        "\"password\": {\"type\": \"string\"}",
        "PWD=/home/user/project OLDPWD=/home/user",
        "password_field = form.field()",
        "passwordless login",
        "secrets: inherit",
        "the secret: it's simple",
        "OPENAI_API_KEY=\"your-api-key-here\"",
        "export ANTHROPIC_API_KEY=sk-ant-...",
        "const apiKey = await getApiKey(provider)",
        "env = { \"API_KEY\" = \"value\" }",
        "signingkey = /Users/me/Library/PublicKeys/6ffc30f5c8a914c3199ac8681b65a92a.pub",
        "private_key: ~/.ssh/id_ed25519",
        "access_token: \"mock-token\"",
        "\"OPENWEATHER_API_KEY\": \"user-provided-api-key\"",
    ] {
        assert_untouched(text);
    }
}

#[test]
fn overlapping_findings_are_merged_into_one() {
    let key = format!("ghp_{}", "a1B2c3D4e5".repeat(4));
    let (out, count) = redact_text(&format!("GITHUB_API_KEY={key}")).expect("found");
    assert_eq!(out, "GITHUB_API_KEY=[REDACTED:github_token]");
    assert_eq!(count, 1);
}

#[test]
fn tokens_after_json_escapes_are_found() {
    assert_redacted(
        r"line\nAKIAIOSFODNN7EXAMPLE\n",
        r"line\n[REDACTED:aws_access_key]\n",
    );
    assert_redacted(
        r"x\u003dAKIAIOSFODNN7EXAMPLE",
        r"x\u003d[REDACTED:aws_access_key]",
    );
}

#[test]
fn every_rule_keyword_and_trigger_is_lowercase_and_scanned() {
    let redactor = Redactor::builtin();
    assert!(redactor.skipped().is_empty(), "{:?}", redactor.skipped());
    for rule in &redactor.rules.rules {
        assert!(!rule.keywords.is_empty(), "{} has no keyword", rule.id);
        for keyword in &rule.keywords {
            assert_eq!(keyword, &keyword.to_ascii_lowercase());
        }
    }
    let mut literals = std::collections::HashSet::new();
    for detector in detectors::DETECTORS {
        for literal in detector.triggers {
            assert_eq!(*literal, literal.to_ascii_lowercase());
            assert!(literals.insert(*literal), "{literal} starts two detectors");
        }
    }
}

#[test]
fn every_assignment_keyword_is_recognised() {
    for key in [
        "password",
        "PASSWD",
        "pwd",
        "client_secret",
        "API_KEY",
        "api-key",
        "apiKey",
        "private_key",
        "PrivateKey",
        "access_token",
        "authToken",
        "refresh-token",
        "SESSION_TOKEN",
    ] {
        assert_redacted(
            &format!("{key}=v4lu3x"),
            &format!("{key}=[REDACTED:{}]", assignment_kind(key).name()),
        );
    }
    assert_untouched("tokens=abcd1234 token_count=1234 privateer=abcd apix=abcd1234");
}

#[test]
fn secrets_deep_in_long_texts_are_found() {
    let key = "AKIAIOSFODNN7EXAMPLE";
    for shift in 0..24 {
        let padding = "x ".repeat((32 * 1024 - 12 + shift) / 2);
        let text = format!("{padding}{key} and password=hunter2!x");
        let (out, count) = redact_text(&text).expect("found");
        assert_eq!(count, 2, "shift {shift}");
        assert!(out.ends_with("[REDACTED:aws_access_key] and password=[REDACTED:password]"));
    }
}

#[test]
fn adversarial_repetition_stays_fast() {
    let started = std::time::Instant::now();
    let assignments = "pwd=$pwd=".repeat(50_000);
    assert_untouched(&assignments);
    let begins = "-----BEGIN PRIVATE KEY-----".repeat(20_000);
    assert_eq!(redact_text(&begins).map(|(_, count)| count), Some(1));
    let tokens = format!("x {}", "eyJ".repeat(100_000));
    assert_untouched(&tokens);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn redaction_is_idempotent() {
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N";
    let text = format!(
        "password=hunter2!x\nAuthorization: Bearer abc123DEF456ghi789\n{jwt}\n\
         \"api_secret\": \"abc123def\"\npostgres://u:p4ssw0rd@h/db\nAKIAIOSFODNN7EXAMPLE\n\
         -----BEGIN EC PRIVATE KEY-----\n{PEM_BODY}\n-----END EC PRIVATE KEY-----\n"
    );
    let (once, count) = redact_text(&text).expect("secrets present");
    assert_eq!(count, 7);
    assert_untouched(&once);
}

#[test]
fn count_matches_number_of_markers() {
    let (out, count) = redact_text("a=1 password=abcd1234 b AKIAIOSFODNN7EXAMPLE").expect("found");
    assert_eq!(count, 2);
    assert_eq!(out.matches(MARKER_PREFIX).count(), 2);
}

#[test]
fn redact_value_walks_strings_but_not_keys() {
    let mut value = json!({
        "password": "AKIAIOSFODNN7EXAMPLE",
        "items": ["ok", {"cmd": "export API_KEY=abcd1234efgh"}, 42, null, true],
        "arguments": "{\"command\":\"echo sk-abcdefghij0123456789KLMN\"}",
    });
    assert_eq!(redact_value(&mut value), 3);
    assert_eq!(
        value,
        json!({
            "password": "[REDACTED:aws_access_key]",
            "items": ["ok", {"cmd": "export API_KEY=[REDACTED:secret]"}, 42, null, true],
            "arguments": "{\"command\":\"echo [REDACTED:openai_api_key]\"}",
        })
    );
    assert_eq!(redact_value(&mut value), 0);
}

#[test]
fn non_ascii_text_is_handled() {
    assert_redacted(
        "mot de passe: ünïcödé password=naïve✓pass",
        "mot de passe: ünïcödé password=[REDACTED:password]",
    );
    assert_untouched("日本語のテキスト、秘密ではない。 secret ✓");
}

const REALISTIC_SECRET_FREE_TEXT: &str = r#"use std::collections::HashMap;

/// Validates a login form. The password field must not be empty.
pub fn validate(form: &HashMap<String, String>) -> Result<(), FormError> {
let password = form.get("password").ok_or(FormError::MissingPassword)?;
let password_field = PasswordField::new(password);
if password_field.is_weak() { return Err(FormError::WeakPassword); }
let token_count = tokenizer.encode(&text).len();
let api_key = config.api_key.clone();
let secret = vault.secret("db")?;
Ok(())
}

def connect(host, user, password=None, api_key=None):
password = password or getpass.getpass("Password: ")
api_key = api_key or os.environ.get("API_KEY")
secret_key = settings.SECRET_KEY
return Client(host=host, user=user, password=password, api_key=api_key)

interface Credentials { username: string; password: string; apiKey?: string }
const secretKey = process.env.SECRET_KEY;
export function login({ username, password }: Credentials) { return api.post("/login", { username, password }); }

The agent ran the task-runner with --disk-usage and reported that the secret to fast builds is
caching. Never paste your password into chat: use the keychain. The bearer authentication scheme
is described in RFC 6750; see https://datatracker.ietf.org/doc/html/rfc6750 and
https://docs.rs/regex/latest/regex/ for details. Install scikit-learn (sk-learn) with pip.
Tokens are counted with tiktoken; the access token is refreshed by the auth module.

{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"cargo test -- --nocapture\"],\"workdir\":\"/home/dev/webapp\",\"timeout_ms\":120000}","call_id":"call_8f3a2b1c"}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"I updated `verify_password(password: &str)` to return a Result."}]}
{"sessionId":"7c1e2a90-4b3d-4f5e-9a61-2d8f0c3b5e17","timestamp":"2026-03-20T09:15:00.000Z","model":"gemini-2.5-pro"}
{"schema":{"type":"object","properties":{"password":{"type":"string","minLength":12},"secret":{"type":"string"}}}}
apiVersion: v1
kind: Secret
metadata: {name: db-credentials, namespace: default}
data:
  password: ${DB_PASSWORD}
env:
  - name: PASSWORD
valueFrom: {secretKeyRef: {name: db-credentials, key: password}}
PWD=/home/dev/webapp OLDPWD=/home/dev SHELL=/bin/bash TERM=xterm-256color
git log --oneline | head -5  # 3f2b8c1e fix: rotate secrets via vault, not env
curl -H "Authorization: Bearer $TOKEN" https://api.example.com/v1/items
-----BEGIN CERTIFICATE-----
MIIBszCCAVmgAwIBAgIUEXAMPLE
-----END CERTIFICATE-----
"#;

#[test]
fn realistic_secret_free_text_is_untouched() {
    assert!(REALISTIC_SECRET_FREE_TEXT.len() > 2500);
    assert_untouched(REALISTIC_SECRET_FREE_TEXT);
    for line in REALISTIC_SECRET_FREE_TEXT.lines() {
        assert_untouched(line);
    }
}

/// `cargo test --release -- --ignored --nocapture redaction_throughput`
#[test]
#[ignore = "benchmark; run in release"]
fn redaction_throughput() {
    let text =
        REALISTIC_SECRET_FREE_TEXT.repeat(50 * 1024 * 1024 / REALISTIC_SECRET_FREE_TEXT.len());
    let chunks: Vec<&str> = text.split_inclusive("\n\n").collect();
    let started = std::time::Instant::now();
    let redacted = chunks
        .iter()
        .filter(|chunk| redact_text(chunk).is_some())
        .count();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{:.0} MB/s over {} MB in {} chunks",
        text.len() as f64 / 1e6 / seconds,
        text.len() / 1_000_000,
        chunks.len()
    );
    assert_eq!(redacted, 0);
}

/// `rules/examples.toml`: rule id → synthetic true positives (with `@@` removed).
pub(super) fn rule_examples() -> Vec<(String, String)> {
    #[derive(serde::Deserialize)]
    struct Examples {
        examples: std::collections::BTreeMap<String, Vec<String>>,
    }
    let parsed: Examples =
        toml::from_str(include_str!("rules/examples.toml")).expect("examples.toml parses");
    parsed
        .examples
        .into_iter()
        .flat_map(|(id, list)| {
            list.into_iter()
                .map(move |example| (id.clone(), example.replace("@@", "")))
        })
        .collect()
}

#[test]
fn every_builtin_rule_redacts_its_examples_in_every_context() {
    let examples = rule_examples();
    let redactor = Redactor::builtin();
    for id in redactor.rule_ids() {
        assert!(
            examples.iter().any(|(example_id, _)| example_id == id),
            "rule {id} has no example in examples.toml"
        );
    }
    for (id, secret) in &examples {
        assert!(
            secret.len() >= MIN_TOKEN_LEN,
            "{id}: shorter than MIN_TOKEN_LEN"
        );
        let kind = id.replace('-', "_");
        for context in [
            secret.to_string(),
            format!("export X={secret}\n"),
            format!("{{\"value\":\"{secret}\"}}"),
            format!(r#"{{\"arguments\":\"echo {secret}\\n\"}}"#),
            format!("value: '{secret}', next"),
        ] {
            let (out, _) = redact_text(&context).unwrap_or_else(|| panic!("{id}: {context}"));
            assert!(!out.contains(secret.as_str()), "{id} kept in {out}");
            assert!(out.contains(&format!("[REDACTED:{kind}]")), "{id}: {out}");
        }
    }
}

#[test]
fn issue_cases_openrouter_key_and_wrapped_access_token() {
    let examples = rule_examples();
    let openrouter = &examples
        .iter()
        .find(|(id, _)| id == "openrouter-api-key")
        .expect("example")
        .1;
    assert_redacted(
        &format!("openkey: {openrouter}"),
        "openkey: [REDACTED:openrouter_api_key]",
    );
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    let wrapped: Vec<&str> = jwt
        .as_bytes()
        .chunks(40)
        .map(|chunk| std::str::from_utf8(chunk).expect("ascii"))
        .collect();
    let debug_print = format!(
        "Session {{\n  access_token: \"{}\",\n  refresh_token: [REDACTED:secret],\n}}",
        wrapped.join("\n")
    );
    let out = redacted(&debug_print);
    for piece in &wrapped {
        assert!(!out.contains(piece), "{piece} kept in {out}");
    }
    let encoded = serde_json::to_string(&debug_print).expect("json");
    let out = redacted(&encoded);
    for piece in &wrapped {
        assert!(!out.contains(piece), "{piece} kept in {out}");
    }
    // The same, printed inside a JSON string (escaped newlines), and without a key.
    let escaped = format!("{{\"output\":\"{}\"}}", wrapped.join("\\n"));
    let out = redacted(&escaped);
    assert_eq!(out, "{\"output\":\"[REDACTED:jwt]\"}");
    let bare = format!("token below\n{}\nDone", wrapped.join("\n   "));
    assert_eq!(redacted(&bare), "token below\n[REDACTED:jwt]\nDone");
}

#[test]
fn assignments_to_weak_names_need_a_random_value() {
    let random = "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1";
    for key in ["GITHUB_TOKEN", "service_role_key", "openKey", "stripeToken"] {
        assert_redacted(
            &format!("{key}={random}"),
            &format!("{key}=[REDACTED:secret]"),
        );
        assert_redacted(
            &format!("\"{key}\": \"{random}\""),
            &format!("\"{key}\": \"[REDACTED:secret]\""),
        );
    }
    for text in [
        "cache_key = 3f2b8c1e9a7d6f5e4c3b2a1908f7e6d5c4b3a291",
        "sort_key: created_at_desc_2024",
        "primary_key: user_id",
        "id_token: 7c1e2a90-4b3d-4f5e-9a61-2d8f0c3b5e17",
        "key: value",
        "key=Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1",
        "max_tokens: 4096",
        "next_page_token: abc",
        "hotkey: ctrl+shift+p",
    ] {
        assert_untouched(text);
    }
    assert_redacted(
        "export TOKEN='client_secret: \"Q7v9Xk2Lm4Np6Rs8Tu0W\"'",
        "export TOKEN='client_secret: \"[REDACTED:secret]\"'",
    );
}

#[test]
fn object_entries_with_secret_names_are_redacted_whole() {
    let mut value = json!({
        "env": {"DB_PASSWORD": "hunter2!", "SUPABASE_SERVICE_ROLE_KEY": "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1", "HOME": "/home/dev"},
        "password": {"type": "string"},
        "passwordHint": "the dog",
        "cache_key": "3f2b8c1e9a7d6f5e4c3b2a1908f7e6d5c4b3a291",
        "session_id": "7c1e2a90-4b3d-4f5e-9a61-2d8f0c3b5e17",
    });
    assert_eq!(redact_value(&mut value), 2);
    let mut odd_keys = json!({"éépwd": "/home", "ééé": "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1", "密码_password": "hunter22"});
    assert_eq!(redact_value(&mut odd_keys), 1);
    assert_eq!(value["env"]["DB_PASSWORD"], "[REDACTED:password]");
    assert_eq!(
        value["env"]["SUPABASE_SERVICE_ROLE_KEY"],
        "[REDACTED:secret]"
    );
    assert_eq!(value["env"]["HOME"], "/home/dev");
    assert_eq!(value["passwordHint"], "the dog");
    assert_eq!(redact_value(&mut value), 0);
}

#[test]
fn non_secrets_survive() {
    for text in [
        "commit 3f2b8c1e9a7d6f5e4c3b2a1908f7e6d5c4b3a291 (HEAD -> main)",
        "git checkout 3f2b8c1e9a7d6f5e4c3b2a1908f7e6d5c4b3a291",
        "session 7c1e2a90-4b3d-4f5e-9a61-2d8f0c3b5e17 started",
        "\"integrity\": \"sha512-q8Zk2b0aZ9yQx4f1MIIEowIBAAKCAQEAx4f1q8Zk2b0aZ9yQMIIEowIBAAKCAQEAx4f1q8Zk2b0aZ9yQ==\"",
        "checksum = \"b1a7c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1\"",
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "open event:evt_3f2b8c1e9a7d6f5e4c3b2a1908f7e6d5 in turn:turn_0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        "session:claude-7c1e2a90-4b3d-4f5e-9a61-2d8f0c3b5e17",
        "call_id: call_8f3a2b1c9d0e7f6a5b4c3d2e",
        "toolu_01ABCdefGHIjklMNOpqrSTUv",
        "msg_01XFDUDYJgAACzvnptvVoYEL",
        "\"signature\": \"EqQBCkYIBxgCKkBq8Zk2b0aZ9yQx4f1MIIEowIBAAKCAQEAx4f1q8Zk2b0aZ9yQ\"",
    ] {
        assert_untouched(text);
    }
    let image = format!(
        "{{\"type\":\"image\",\"source\":{{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"iVBORw0KGgo{}\"}}}}",
        "AAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg"
            .repeat(50)
    );
    assert_untouched(&image);
    let mut value: Value = serde_json::from_str(&image).expect("json");
    assert_eq!(redact_value(&mut value), 0);
}

#[test]
fn extra_rules_in_gitleaks_format_are_applied_with_allowlists_and_entropy() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("extra.toml");
    std::fs::write(
        &path,
        r#"
title = "extra"
[extend]
useDefault = true

[allowlist]
regexes = ['''^acme_test_''']

[[rules]]
id = "acme-key"
description = "Acme key"
regex = '''\b(acme_[a-z]+_[A-Za-z0-9]{16})\b'''
keywords = ["acme_"]
entropy = 3.0
tags = ["key"]
[[rules.allowlists]]
stopwords = ["example"]

[[rules]]
id = "broken"
regex = '''(unclosed'''
keywords = ["broken"]

[[rules]]
id = "path-only"
path = '''\.pem$'''
"#,
    )
    .expect("write");
    let redactor = Redactor::with_rules_file(&path).expect("loads");
    assert_eq!(redactor.skipped().len(), 1);
    assert_eq!(redactor.skipped()[0].id, "broken");
    assert_ne!(redactor.version(), Redactor::builtin().version());
    let found = |text: &str| redactor.redact_text(text).map(|(out, _)| out);
    assert_eq!(
        found("k=acme_live_Zx9Qw8Er7Ty6Ui5O ok").as_deref(),
        Some("k=[REDACTED:acme_key] ok")
    );
    assert_eq!(
        found("acme_test_Zx9Qw8Er7Ty6Ui5O"),
        None,
        "global allowlist"
    );
    assert_eq!(found("acme_example_Zx9Qw8Er7Ty6U"), None, "stopword");
    assert_eq!(found("acme_live_aaaaaaaaaaaaaaaa"), None, "low entropy");
    assert!(
        found("AKIAIOSFODNN7EXAMPLE").is_some(),
        "built-in rules stay"
    );
    std::fs::write(&path, "[[rules]\nid=").expect("write");
    assert!(matches!(
        Redactor::with_rules_file(&path),
        Err(RulesError::Parse { .. })
    ));
}

#[test]
fn check_reports_kinds_and_positions_never_values() {
    let line = format!(
        "{{\"type\":\"user\",\"message\":{{\"content\":\"my key is {} ok\"}},\"env\":{{\"DB_PASSWORD\":\"hunter2!\"}}}}\nplain password=letmein1\n",
        "AKIAIOSFODNN7EXAMPLE"
    );
    let findings = check::check_content(&Redactor::builtin(), &line);
    let shown: Vec<String> = findings.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "line 1 /message/content bytes 10..30: aws_access_key",
            "line 1 /env/DB_PASSWORD bytes 0..8: password",
            "line 2 (text) bytes 15..23: password",
        ]
    );
}

#[test]
fn random_fragments_never_panic_and_redaction_is_stable() {
    const PIECES: &[&str] = &[
        "key",
        "token",
        "password",
        "secret",
        "=",
        ": ",
        "\"",
        "\\\"",
        "'",
        "\\n",
        "\n",
        "\\u003d",
        "eyJ",
        "hbGciOiJIUzI1NiJ9",
        ".",
        "sk-",
        "ghp_",
        "AKIA",
        "://",
        "@",
        "Bearer ",
        "é",
        "密",
        "Zx9Qw8Er7Ty6Ui5Op4As3",
        "abc",
        " ",
        "-----BEGIN PRIVATE KEY-----",
        "_",
        "-",
        "$",
        "{{",
        "[REDACTED:",
        "]",
        "\\",
    ];
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let length = (next() % 24) as usize;
        let text: String = (0..length)
            .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
            .collect();
        if let Some((once, _)) = redact_text(&text) {
            let twice = redacted(&once);
            assert_eq!(twice, once, "not stable for {text:?}");
        }
        let mut value = json!({"key": text, "api_token": text, "list": [text]});
        redact_value(&mut value);
    }
}

#[test]
fn re2_literal_braces_are_escaped_and_repetitions_kept() {
    use super::rules::escape_literal_braces;
    assert_eq!(
        escape_literal_braces(r"a{2}b{2,}c{2,5}"),
        r"a{2}b{2,}c{2,5}"
    );
    assert_eq!(escape_literal_braces(r"\$?{{[^}]+}}"), r"\$?\{\{[^}]+}}");
    assert_eq!(
        escape_literal_braces(r"^\$(?:\d+|{\d+})$"),
        r"^\$(?:\d+|\{\d+})$"
    );
    assert_eq!(escape_literal_braces(r"[{]x\{"), r"[{]x\{");
    let rules = RuleSet::parse(
        "[[rules]]\nid = \"templated\"\nregex = '''import[ \\t]+{[ \\t\\w,]+}[ \\t]+from'''\nkeywords = [\"import\"]\n",
        "test",
    )
    .expect("parses");
    assert!(rules.skipped.is_empty(), "{:?}", rules.skipped);
    assert_eq!(rules.rules.len(), 1);
}
