# The runner hooks (runner-hooks/README.md): benchprof-wrap in $(bindir),
# the hooks under $(pkgdatadir)/runner-hooks/<runner>/.
dist_bin_SCRIPTS = runner-hooks/benchprof-wrap
hooksdir = $(pkgdatadir)/runner-hooks
dist_hooks_DATA = runner-hooks/README.md
hooksgithubdir = $(hooksdir)/github
dist_hooksgithub_SCRIPTS = runner-hooks/github/job-started.sh \
  runner-hooks/github/job-completed.sh
dist_hooksgithub_DATA = runner-hooks/github/README.md
hooksgitlabdir = $(hooksdir)/gitlab
dist_hooksgitlab_SCRIPTS = runner-hooks/gitlab/post_build_script.sh
dist_hooksgitlab_DATA = runner-hooks/gitlab/README.md \
  runner-hooks/gitlab/pre_build_script.sh \
  runner-hooks/gitlab/config.toml.example
hooksbencherdir = $(hooksdir)/bencher
dist_hooksbencher_SCRIPTS = runner-hooks/bencher/entrypoint.sh
dist_hooksbencher_DATA = runner-hooks/bencher/README.md
EXTRA_DIST += runner-hooks/hooks.mk
