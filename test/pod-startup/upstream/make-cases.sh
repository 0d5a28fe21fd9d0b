#!/bin/sh
# make-cases.sh DIR: lays out one directory per provider case (shared volume + config) for differential.py.
# Each case is a provider package built on the real server's spec classes (ogx_api, llama_stack_api or
# llama_stack.providers.datatypes), right or wrong in one way.
D=$1; rm -rf $D; mkdir -p $D
mk() { # name, provider.py body, __init__ body, config yaml entry extra
  c=$D/$1; mkdir -p $c/shared/python-packages/acme_p $c/shared/metadata/p
  printf '%s\n' "$2" > $c/shared/python-packages/acme_p/provider.py
  printf '%s\n' "$3" > $c/shared/python-packages/acme_p/__init__.py
  echo '{"providerId": "p", "api": "inference", "image": "registry.test/p:1", "order": 0}' > $c/shared/metadata/p/crd-config.yaml
  printf 'spec:\n  packageName: acme_p\n  providerType: remote::acme\n  api: inference\n' > $c/shared/metadata/p/lls-provider-spec.yaml
  printf 'providers:\n  inference:\n  - provider_id: p\n    provider_type: remote::acme\n    module: acme_p==1.0\n    config:\n%s\n' "${4:-      url: http://x}" > $c/config.yaml
}
IMP='try:
    from ogx_api import RemoteProviderSpec, InlineProviderSpec, Api
except ImportError:
    try:
        from llama_stack_api import RemoteProviderSpec, InlineProviderSpec, Api
    except ImportError:
        from llama_stack.providers.datatypes import RemoteProviderSpec, InlineProviderSpec, Api'
INIT='from pydantic import BaseModel
class Config(BaseModel):
    url: str
class A: pass
async def get_adapter_impl(config, deps):
    return A()'
mk good "$IMP
def get_provider_spec():
    return RemoteProviderSpec(api=Api.inference, provider_type='remote::acme', adapter_type='acme', module='acme_p', config_class='acme_p.Config')" "$INIT"
mk list_pick "$IMP
def get_provider_spec():
    return [InlineProviderSpec(api=Api.inference, provider_type='inline::acme', module='acme_p', config_class='acme_p.Config'), RemoteProviderSpec(api=Api.inference, provider_type='remote::acme', adapter_type='acme', module='acme_p', config_class='acme_p.Config')]" "$INIT"
mk list_nomatch "$IMP
def get_provider_spec():
    return [InlineProviderSpec(api=Api.inference, provider_type='inline::acme', module='acme_p', config_class='acme_p.Config')]" "$INIT"
mk dict_spec "def get_provider_spec():
    return {'api': 'inference', 'provider_type': 'remote::acme', 'module': 'acme_p', 'config_class': 'acme_p.Config'}" "$INIT"
mk plain_class "class S:
    api = 'inference'; provider_type = 'remote::acme'; module = 'acme_p'; config_class = 'acme_p.Config'; deprecation_error = None; deprecation_warning = None; api_dependencies = []; optional_api_dependencies = []
def get_provider_spec():
    return S()" "$INIT"
mk bad_config "$IMP
def get_provider_spec():
    return RemoteProviderSpec(api=Api.inference, provider_type='remote::acme', adapter_type='acme', module='acme_p', config_class='acme_p.Config')" "$INIT" "      other: 1"
mk inline_no_factory "$IMP
def get_provider_spec():
    return InlineProviderSpec(api=Api.inference, provider_type='remote::acme', module='acme_p', config_class='acme_p.Config')" "$INIT"
mk deprecated "$IMP
def get_provider_spec():
    return RemoteProviderSpec(api=Api.inference, provider_type='remote::acme', adapter_type='acme', module='acme_p', config_class='acme_p.Config', deprecation_error='gone')" "$INIT"
mk spec_other_type "$IMP
def get_provider_spec():
    return RemoteProviderSpec(api=Api.inference, provider_type='remote::whatever', adapter_type='acme', module='acme_p', config_class='acme_p.Config')" "$INIT"
mk no_module "$IMP
def get_provider_spec():
    return RemoteProviderSpec(api=Api.inference, provider_type='remote::acme', adapter_type='acme', config_class='acme_p.Config')" "$INIT"
mk env_missing "$IMP
def get_provider_spec():
    return RemoteProviderSpec(api=Api.inference, provider_type='remote::acme', adapter_type='acme', module='acme_p', config_class='acme_p.Config')" "$INIT" '      url: ${env.ACME_UNSET_URL}'
mk foreign_spec "from pydantic import BaseModel
class RemoteProviderSpec(BaseModel):
    api: str = 'inference'; provider_type: str = 'remote::acme'; adapter_type: str = 'acme'; module: str = 'acme_p'; config_class: str = 'acme_p.Config'
    api_dependencies: list = []; optional_api_dependencies: list = []; deprecation_error: str | None = None; deprecation_warning: str | None = None; pip_packages: list = []
def get_provider_spec():
    # A look-alike of the spec class from another package (as llama_stack_api's is to ogx): not the server's ProviderSpec.
    return RemoteProviderSpec()" "$INIT"
