/* config: the strict parser, its messages, the overrides and show. */
#include "bp_setup.h"
#include "config.h"
#include "bencher.h"
#include "counters.h"
#include "http.h"
#include "record.h"
#include "store.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* Parse text over defaults; the error message in msg (empty when valid). */
static bp_code parse(struct bp_config *c, const char *text, char *msg,
                     size_t cap)
{
  struct bp_err err = {0};
  bp_code rc = bpi_config_parse(c, text, strlen(text), "c.json", &err);
  snprintf(msg, cap, "%s", err.msg);
  return rc;
}

static void test_defaults(void)
{
  struct bp_config c;
  CHECK_EQ_INT(bpi_config_init(&c), BP_OK);
  CHECK(c.enabled);
  CHECK(!c.strict);
  CHECK_EQ_STR(c.output, "benchprof-out");
  CHECK_EQ_STR(c.record.event, "cycles");
  CHECK_EQ_INT(c.record.frequency, 997);
  CHECK_EQ_INT(c.record.period, 0);
  CHECK_EQ_INT(c.record.call_graph_mode, BP_CALL_GRAPH_AUTO);
  CHECK_EQ_STR(c.record.counters, BP_COUNTERS_DEFAULT);
  CHECK_EQ_STR(c.bencher.token_env, "BENCHER_API_TOKEN");
  CHECK(!c.store.url && !c.bencher.token && !c.spool);
  CHECK_EQ_INT(c.network.connect_timeout_ms, 10000);
  CHECK_EQ_INT(c.network.timeout_ms, 120000);
  CHECK_EQ_INT(c.network.retries, 4);
  CHECK(c.comment.enabled);
  CHECK(c.comment.threshold == 5.0);
  CHECK_EQ_INT(c.comment.max_functions, 10);
  CHECK_EQ_STR(c.comment.wall_time_only, "separate");
  CHECK(!c.comment.wall_time_counted);
  CHECK(!c.firefox_upload);
  bpi_config_cleanup(&c);
}

static void test_every_key(void)
{
  static const char doc[] =
    "{\"enabled\": false, \"strict\": true, \"output\": \"o\","
    " \"spool\": \"/sp\", \"firefox_upload\": true,"
    " \"record\": {\"event\": \"instructions\", \"period\": 100000,"
    "  \"call_graph\": \"dwarf,16384\", \"counters\": [\"cycles\", \"instructions\"],"
    "  \"kernel\": true},"
    " \"store\": {\"url\": \"s3://b/p\", \"public_url\": \"https://cdn/p\","
    "  \"token_env\": \"STORE_TOKEN\", \"s3\": {\"endpoint\": \"http://127.0.0.1:4569\","
    "  \"region\": \"eu-west-1\", \"path_style\": true}},"
    " \"bencher\": {\"host\": \"http://127.0.0.1:6610\", \"project\": \"p\","
    "  \"testbed\": \"t\", \"token_env\": \"MY_TOKEN\", \"token\": \"s3cr3t\"},"
    " \"network\": {\"connect_timeout\": 1.5, \"timeout\": 30, \"retries\": 0,"
    "  \"ca_file\": \"/ca.pem\"},"
    " \"comment\": {\"enabled\": false, \"threshold\": 5.5, \"max_functions\": 3,"
    "  \"token_env\": \"GL_TOKEN\", \"file\": \"c.md\","
    "  \"wall_time_only\": \"regression\"}}";
  struct bp_config c;
  char msg[512];
  bpi_config_init(&c);
  CHECK_EQ_INT(parse(&c, doc, msg, sizeof(msg)), BP_OK);
  CHECK(!c.enabled && c.strict && c.firefox_upload);
  CHECK_EQ_STR(c.output, "o");
  CHECK_EQ_STR(c.spool, "/sp");
  CHECK_EQ_STR(c.record.event, "instructions");
  CHECK_EQ_INT(c.record.period, 100000);
  CHECK_EQ_INT(c.record.frequency, 0);
  CHECK_EQ_INT(c.record.call_graph_mode, BP_CALL_GRAPH_DWARF);
  CHECK_EQ_INT(c.record.stack_bytes, 16384);
  CHECK_EQ_STR(c.record.counters, "cycles,instructions");
  CHECK(c.record.kernel);
  CHECK_EQ_STR(c.store.url, "s3://b/p");
  CHECK_EQ_STR(c.store.public_url, "https://cdn/p");
  CHECK_EQ_STR(c.store.token_env, "STORE_TOKEN");
  CHECK_EQ_STR(c.store.s3.endpoint, "http://127.0.0.1:4569");
  CHECK_EQ_STR(c.store.s3.region, "eu-west-1");
  CHECK(c.store.s3.path_style);
  CHECK_EQ_STR(c.bencher.host, "http://127.0.0.1:6610");
  CHECK_EQ_STR(c.bencher.project, "p");
  CHECK_EQ_STR(c.bencher.testbed, "t");
  CHECK_EQ_STR(c.bencher.token_env, "MY_TOKEN");
  CHECK_EQ_STR(c.bencher.token, "s3cr3t");
  CHECK_EQ_INT(c.network.connect_timeout_ms, 1500);
  CHECK_EQ_INT(c.network.timeout_ms, 30000);
  CHECK_EQ_INT(c.network.retries, 0);
  CHECK_EQ_STR(c.network.ca_file, "/ca.pem");
  CHECK(!c.comment.enabled);
  CHECK(c.comment.threshold == 5.5);
  CHECK_EQ_INT(c.comment.max_functions, 3);
  CHECK_EQ_STR(c.comment.token_env, "GL_TOKEN");
  CHECK_EQ_STR(c.comment.file, "c.md");
  CHECK_EQ_STR(c.comment.wall_time_only, "regression");
  CHECK(c.comment.wall_time_counted);

  /* tokens: the file's own wins over the variable */
  char *env[] = {"MY_TOKEN=from-env", "STORE_TOKEN=st", "GITHUB_TOKEN=gh",
                 "GL_TOKEN=gl", NULL};
  CHECK_EQ_STR(bpi_config_bencher_token(&c, env), "s3cr3t");
  CHECK_EQ_STR(bpi_config_store_token(&c, env), "st");
  CHECK_EQ_STR(bpi_config_comment_token(&c, "github", env), "gl");

  /* show: every key set appears, the token never */
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK_EQ_INT(bpi_config_show(&c, &b), BP_OK);
  CHECK(b.data && !strstr(b.data, "s3cr3t"));
  CHECK(b.data && strstr(b.data, "\"token\": \"<redacted>\""));
  CHECK(b.data && strstr(b.data, "\"period\": 100000"));
  CHECK(b.data && !strstr(b.data, "\"frequency\""));
  CHECK(b.data && strstr(b.data, "\"counters\": [\"cycles\", \"instructions\"]"));
  CHECK(b.data && strstr(b.data, "\"connect_timeout\": 1.5"));
  /* and reads back the same (the token as the placeholder) */
  struct bp_config again;
  bpi_config_init(&again);
  CHECK_EQ_INT(parse(&again, b.data ? b.data : "", msg, sizeof(msg)), BP_OK);
  CHECK_EQ_INT(again.record.period, 100000);
  CHECK_EQ_STR(again.store.s3.region, "eu-west-1");
  CHECK(again.comment.threshold == 5.5);
  CHECK(again.comment.wall_time_counted);
  bpi_config_cleanup(&again);
  bpi_buf_cleanup(&b);
  bpi_config_cleanup(&c);

  /* without a token_env, the provider's variable */
  bpi_config_init(&c);
  CHECK_EQ_STR(bpi_config_comment_token(&c, "github", env), "gh");
  CHECK(bpi_config_comment_token(&c, "gitlab", env) == NULL);
  /* GitLab: an access token, never the job token its notes API refuses */
  char *gl_env[] = {"CI_JOB_TOKEN=job", NULL};
  CHECK(bpi_config_comment_token(&c, "gitlab", gl_env) == NULL);
  char *gl_env2[] = {"CI_JOB_TOKEN=job", "GITLAB_TOKEN=glpat", NULL};
  CHECK_EQ_STR(bpi_config_comment_token(&c, "gitlab", gl_env2), "glpat");
  CHECK(bpi_config_bencher_token(&c, env) == NULL);
  bpi_config_cleanup(&c);
}

struct bad {
  const char *doc;
  const char *msg;   /* the whole message */
};

static void test_errors(void)
{
  static const struct bad cases[] = {
    {"{\"record\": {\"frequncy\": 99}}",
     "c.json: $.record.frequncy: unknown key; did you mean \"frequency\"?"},
    {"{\"frequency\": 99}",
     "c.json: $.frequency: unknown key; did you mean $.record.frequency?"},
    {"{\"enabeld\": true}",
     "c.json: $.enabeld: unknown key; did you mean \"enabled\"?"},
    {"{\"zzzzzz\": 1}", "c.json: $.zzzzzz: unknown key"},
    {"{\"store\": {\"s3\": {\"regoin\": \"x\"}}}",
     "c.json: $.store.s3.regoin: unknown key; did you mean \"region\"?"},
    {"{\"a\\nb\": 1}", "c.json: $[\"a\\nb\"]: unknown key"},
    {"{\"record\": {\"frequency\": \"99\"}}",
     "c.json: $.record.frequency: expected a whole number from 1 to "
     "1000000, got a string"},
    {"{\"record\": {\"frequency\": 0}}",
     "c.json: $.record.frequency: expected a whole number from 1 to "
     "1000000, got 0"},
    {"{\"record\": {\"frequency\": 99.5}}",
     "c.json: $.record.frequency: expected a whole number from 1 to "
     "1000000, got 99.5"},
    {"{\"record\": {\"frequency\": 9, \"period\": 9}}",
     "c.json: $.record: \"frequency\" and \"period\" are both given; give "
     "one"},
    {"{\"enabled\": \"yes\"}",
     "c.json: $.enabled: expected true or false, got a string"},
    {"{\"record\": []}", "c.json: $.record: expected an object, got an array"},
    {"[1]", "c.json: $: expected an object, got an array"},
    {"{\"record\": {\"call_graph\": \"dwarf,7\"}}",
     "c.json: $.record.call_graph: expected fp, dwarf, dwarf,BYTES (a "
     "multiple of 8 up to 65528), auto or lbr, got \"dwarf,7\""},
    {"{\"comment\": {\"wall_time_only\": \"count\"}}",
     "c.json: $.comment.wall_time_only: expected \"separate\" (a "
     "wall-time-only change is not counted) or \"regression\" (it is), got "
     "\"count\""},
    {"{\"comment\": {\"wall_time_only\": true}}",
     "c.json: $.comment.wall_time_only: expected \"separate\" (a "
     "wall-time-only change is not counted) or \"regression\" (it is), got "
     "true"},
    {"{\"record\": {\"counters\": true}}",
     "c.json: $.record.counters: expected a list of event names or false, "
     "got true"},
    {"{\"record\": {\"counters\": [\"a,b\"]}}",
     "c.json: $.record.counters: item 0: expected an event name (no commas "
     "or spaces), got \"a,b\""},
    {"{\"store\": {\"url\": \"ftp://x\"}}",
     "c.json: $.store.url: expected a file:///, s3://, http:// or https:// "
     "URL, got \"ftp://x\""},
    {"{\"bencher\": {\"token_env\": \"1X\"}}",
     "c.json: $.bencher.token_env: expected the name of an environment "
     "variable holding the token (like BENCHER_API_TOKEN: uppercase letters, "
     "digits and '_', not starting with a digit), not the token itself, got "
     "a value that is not shown"},
    {"{\"store\": {\"token_env\": \"ghp_x1\"}}",
     "c.json: $.store.token_env: expected the name of an environment "
     "variable holding the token (like BENCHER_API_TOKEN: uppercase letters, "
     "digits and '_', not starting with a digit), not the token itself, got "
     "a value that is not shown"},
    {"{\"comment\": {\"token_env\": \"AKIAIOSFODNN7EXAMPLE\"}}",
     "c.json: $.comment.token_env: expected the name of an environment "
     "variable holding the token (like BENCHER_API_TOKEN: uppercase letters, "
     "digits and '_', not starting with a digit), not the token itself, got "
     "a value that is not shown; " BP_CONFIG_CREDENTIAL_RULE},
    {"{\"bencher\": {\"token\": \"\"}}",
     "c.json: $.bencher.token: expected a non-empty string, got an empty "
     "string"},
    {"{\"network\": {\"timeout\": 0}}",
     "c.json: $.network.timeout: expected seconds, more than 0 and at most "
     "3600, got 0"},
    {"{\"network\": {\"retries\": 21}}",
     "c.json: $.network.retries: expected a whole number from 0 to 20, got "
     "21"},
    {"{\"enabled\": true, \"enabled\": false}",
     "c.json: $: duplicate key \"enabled\""},
    {"{\n  \"enabled\": true,\n  \"strict\": tru\n}",
     "c.json:3:13: JSON syntax error near \"tru\\n}\""},
    {"{\"enabled\": true} x", "c.json:1:19: JSON syntax error near \"x\""},
    {"", "c.json:1:1: JSON syntax error at the end of the file"},
    /* cJSON would end the string there: "a" instead of what was written */
    {"{\"output\": \"a\\u0000b\"}",
     "c.json:1:14: \\u0000 in a string near \"\\\\u0000b\\\"}\""},
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(cases); i++) {
    struct bp_config c;
    char msg[512];
    bpi_config_init(&c);
    bp_code rc = parse(&c, cases[i].doc, msg, sizeof(msg));
    CHECK_EQ_INT(rc, BPE_CONFIG);
    CHECK_EQ_STR(msg, cases[i].msg);
    /* a failed parse changes nothing */
    CHECK(c.enabled);
    CHECK_EQ_INT(c.record.frequency, 997);
    bpi_config_cleanup(&c);
  }
  { /* an escaped backslash before "u0000" is text, not the escape */
    struct bp_config c;
    char msg[512];
    bpi_config_init(&c);
    CHECK_EQ_INT(parse(&c, "{\"output\": \"a\\\\u0000b\"}", msg,
                       sizeof(msg)), BP_OK);
    CHECK_EQ_STR(c.output, "a\\u0000b");
    bpi_config_cleanup(&c);
  }
  /* the secret's value is never in a message */
  struct bp_config c;
  char msg[512];
  bpi_config_init(&c);
  CHECK_EQ_INT(parse(&c, "{\"bencher\": {\"token\": 12345}}", msg,
                     sizeof(msg)), BPE_CONFIG);
  CHECK_EQ_STR(msg, "c.json: $.bencher.token: expected a non-empty string, "
               "got a number");
  bpi_config_cleanup(&c);
}

static void test_env(void)
{
  struct bp_config c;
  struct bp_err err = {0};
  char *env[] = {
    "BENCHPROF_ENABLED=0", "BENCHPROF_STORE=file:///st",
    "BENCHPROF_PUBLIC_URL=https://pub", "BENCHPROF_SPOOL=/spool",
    "BENCHPROF_PROJECT=proj", "BENCHPROF_TESTBED=tb",
    "BENCHPROF_EVENT=instructions", "BENCHPROF_PERIOD=5000",
    "BENCHPROF_OUTPUT=out", "BENCHPROF_STRICT=yes",
    "BENCHPROF_COUNTERS=none", "BENCHPROF_CALL_GRAPH=fp",
    "BENCHER_HOST=http://h:1", "BENCHPROF_KERNEL=",
    "BENCHPROF_SUITE=bench.a", "BENCHPROF_WALL_TIME_ONLY=regression", NULL
  };
  bpi_config_init(&c);
  static const char doc[] = "{\"record\": {\"frequency\": 99, "
                            "\"kernel\": true}}";
  CHECK_EQ_INT(bpi_config_parse(&c, doc, strlen(doc), "c.json", &err),
               BP_OK);
  CHECK_EQ_INT(bpi_config_apply_env(&c, env, &err), BP_OK);
  CHECK(!c.enabled && c.strict);
  CHECK_EQ_STR(c.store.url, "file:///st");
  CHECK_EQ_STR(c.store.public_url, "https://pub");
  CHECK_EQ_STR(c.spool, "/spool");
  CHECK_EQ_STR(c.bencher.project, "proj");
  CHECK_EQ_STR(c.bencher.testbed, "tb");
  CHECK_EQ_STR(c.bencher.suite, "bench.a");
  CHECK(c.comment.wall_time_counted);
  CHECK_EQ_STR(c.bencher.host, "http://h:1");
  CHECK_EQ_STR(c.record.event, "instructions");
  /* the variable's period replaces the file's frequency */
  CHECK_EQ_INT(c.record.period, 5000);
  CHECK_EQ_INT(c.record.frequency, 0);
  CHECK(c.record.counters == NULL);
  CHECK_EQ_INT(c.record.call_graph_mode, BP_CALL_GRAPH_FP);
  CHECK_EQ_STR(c.output, "out");
  CHECK(c.record.kernel);  /* empty: unset */
  bpi_config_cleanup(&c);

  static const struct {
    const char *var;
    const char *msg;
  } bad[] = {
    {"BENCHPROF_ENABLED=maybe",
     "BENCHPROF_ENABLED: expected true or false, got \"maybe\""},
    {"BENCHPROF_FREQUENCY=10x",
     "BENCHPROF_FREQUENCY: expected a whole number from 1 to 1000000, got "
     "\"10x\""},
    {"BENCHPROF_FREQUENCY=0x10",
     "BENCHPROF_FREQUENCY: expected a whole number from 1 to 1000000, got "
     "\"0x10\""},
    {"BENCHPROF_STORE=/no/scheme",
     "BENCHPROF_STORE: expected a file:///, s3://, http:// or https:// URL, "
     "got \"/no/scheme\""},
    {"BENCHPROF_SUITE= a",
     "BENCHPROF_SUITE: expected a suite's name (1 to 64 ASCII letters, "
     "digits, '.', '_' or '-'), got \" a\""},
    {"BENCHPROF_COUNTERS=a,,b",
     "BENCHPROF_COUNTERS: item 1: expected an event name (no commas or "
     "spaces), got \"\""},
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(bad); i++) {
    char *one[] = {(char *)bad[i].var, NULL};
    struct bp_err e = {0};
    bpi_config_init(&c);
    CHECK_EQ_INT(bpi_config_apply_env(&c, one, &e), BPE_CONFIG);
    CHECK_EQ_STR(e.msg, bad[i].msg);
    CHECK(c.enabled);
    bpi_config_cleanup(&c);
  }
  char *both[] = {"BENCHPROF_FREQUENCY=9", "BENCHPROF_PERIOD=9", NULL};
  struct bp_err e = {0};
  bpi_config_init(&c);
  CHECK_EQ_INT(bpi_config_apply_env(&c, both, &e), BPE_CONFIG);
  bpi_config_cleanup(&c);
}

static void test_path_and_load(void)
{
  enum bp_config_source src;
  char *env[] = {"BENCHPROF_CONFIG=/e.json", NULL};
  char *none[] = {NULL};
  CHECK_EQ_STR(bpi_config_path("/f.json", env, &src), "/f.json");
  CHECK_EQ_INT(src, BP_CONFIG_FLAG);
  CHECK_EQ_STR(bpi_config_path(NULL, env, &src), "/e.json");
  CHECK_EQ_INT(src, BP_CONFIG_ENV);
  CHECK_EQ_STR(bpi_config_path(NULL, none, &src), BP_CONFIG_DEFAULT_PATH);
  CHECK_EQ_INT(src, BP_CONFIG_DEFAULT);

  /* a named file that is missing: BPE_NOT_FOUND, but the environment
   * still applies */
  struct bp_config c;
  struct bp_err err = {0};
  char *env2[] = {"BENCHPROF_CONFIG=/nonexistent/benchprof.json",
                  "BENCHPROF_STRICT=1", NULL};
  CHECK_EQ_INT(bpi_config_load(&c, NULL, env2, &err), BPE_NOT_FOUND);
  CHECK(strstr(err.msg, "/nonexistent/benchprof.json") != NULL);
  CHECK(c.strict);
  CHECK(c.file == NULL);
  bpi_config_cleanup(&c);
  CHECK(bpi_config_key(0) != NULL);
  CHECK(bpi_config_key(1000) == NULL);
}

static void test_mapping(void)
{
  static const char doc[] =
    "{\"record\": {\"event\": \"instructions\", \"frequency\": 4999,"
    " \"call_graph\": \"dwarf,4096\", \"counters\": false, \"kernel\": true},"
    " \"store\": {\"url\": \"s3://b\", \"token_env\": \"ST\","
    "  \"s3\": {\"region\": \"r\", \"path_style\": true}},"
    " \"bencher\": {\"host\": \"http://h\"},"
    " \"network\": {\"timeout\": 3, \"retries\": 1, \"ca_file\": \"/ca\"}}";
  char *env[] = {"AWS_ACCESS_KEY_ID=AK", "AWS_SECRET_ACCESS_KEY=SK",
                 "ST=bearer", "BENCHER_API_TOKEN=bt", NULL};
  struct bp_config c;
  char msg[512];
  bpi_config_init(&c);
  CHECK_EQ_INT(parse(&c, doc, msg, sizeof(msg)), BP_OK);
  struct bp_record_opts r = {.event = "cycles", .freq = 1, .demangle = true};
  bpi_config_record_opts(&c, &r);
  CHECK_EQ_STR(r.event, "instructions");
  CHECK_EQ_INT(r.freq, 4999);
  CHECK_EQ_INT(r.period, 0);
  CHECK_EQ_INT(r.call_graph, BP_CALL_GRAPH_DWARF);
  CHECK_EQ_INT(r.stack_bytes, 4096);
  CHECK(r.counters == NULL);
  CHECK(r.kernel && r.demangle);
  struct bp_http_opts h = {.backoff_ms = 7};
  bpi_config_http_opts(&c, &h);
  CHECK_EQ_INT(h.total_timeout_ms, 3000);
  CHECK_EQ_INT(h.connect_timeout_ms, 10000);
  CHECK_EQ_INT(h.retries, 1);
  CHECK_EQ_STR(h.ca_file, "/ca");
  CHECK_EQ_INT(h.backoff_ms, 7);
  struct bp_store_opts st = {0};
  bpi_config_store_opts(&c, env, &st);
  CHECK_EQ_STR(st.url, "s3://b");
  CHECK_EQ_STR(st.s3_region, "r");
  CHECK(st.s3_path_style && st.s3_endpoint == NULL);
  CHECK_EQ_STR(st.aws_key, "AK");
  CHECK_EQ_STR(st.aws_secret, "SK");
  CHECK(st.aws_session_token == NULL);
  CHECK_EQ_STR(st.bearer, "bearer");
  struct bp_bencher_opts bo = {0};
  bpi_config_bencher_opts(&c, env, &bo);
  CHECK_EQ_STR(bo.host, "http://h");
  CHECK_EQ_STR(bo.token, "bt");
  bpi_config_cleanup(&c);
}

/* --call-graph lbr in the file too */
/* Names of the conventional form that are credentials (an AWS access
 * key ID, a long random key) are refused; real names, with their '_'
 * or short, are taken. */
static void test_env_name_credentials(void)
{
  static const char *const refused[] = {
    "AKIAIOSFODNN7EXAMPLE", "ASIAY34FZKBOKMUTVV7A", "AROAJQABLZS4A3QDU576",
    "ABCDEF0123456789", "K7Q2M9XZ4T1B8C3D",
  };
  static const char *const taken[] = {
    "BENCHER_API_TOKEN", "MY_TOKEN_2024", "AWS_ACCESS_KEY_ID", "GH_TOKEN2",
    "BENCHPROFGITHUBTOKEN", "TOKEN123", "AKIA_TOKEN_OF_THE_TEAM",
    "S3TOKEN", "ANPAPROFILE",
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(refused); i++) {
    CHECK(bpi_config_credential_like(refused[i]));
    CHECK(!bpi_config_env_name(refused[i]));
  }
  for(size_t i = 0; i < BP_ARRAY_LEN(taken); i++) {
    CHECK(!bpi_config_credential_like(taken[i]));
    CHECK(bpi_config_env_name(taken[i]));
  }
  /* lowercase tokens stay refused by the form, not called credentials */
  CHECK(!bpi_config_credential_like("ghp_0123456789abcdef0123"));
  CHECK(!bpi_config_env_name("ghp_0123456789abcdef0123"));
}

static void test_call_graph_lbr(void)
{
  struct bp_config c;
  struct bp_err err = {0};
  static const char doc[] = "{\"record\": {\"call_graph\": \"lbr\"}}";
  bpi_config_init(&c);
  CHECK_EQ_INT(bpi_config_parse(&c, doc, strlen(doc), "c.json", &err),
               BP_OK);
  CHECK_EQ_INT(c.record.call_graph_mode, BP_CALL_GRAPH_LBR);
  bpi_config_cleanup(&c);
}

int main(void)
{
  test_mapping();
  test_defaults();
  test_every_key();
  test_errors();
  test_env_name_credentials();
  test_call_graph_lbr();
  test_env();
  test_path_and_load();
  return check_exit();
}
