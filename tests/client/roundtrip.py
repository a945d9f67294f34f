"""A round trip through a client generated from openapi/openapi.json by openapi-python-client:
create a team, a project and keys (plain and plural), query them, upload a file, export, and
download the export.

    python roundtrip.py GENERATED_DIR BASE_URL TOKEN

scripts/client.sh generates the client and runs this against a live server.
"""
import io
import json
import sys
import urllib.request
import zipfile

generated, base, token = sys.argv[1:4]
sys.path.insert(0, generated)

from locstore_client import AuthenticatedClient  # noqa: E402
from locstore_client.api.export import export_keys  # noqa: E402
from locstore_client.api.keys import create_key, get_key, import_keys, query_keys, update_key, upload_files  # noqa: E402
from locstore_client.api.projects import create_project, list_projects  # noqa: E402
from locstore_client.api.teams import create_team, list_teams  # noqa: E402
from locstore_client.models import (  # noqa: E402
    CreateKeyRequest,
    CreateProjectRequest,
    CreateTeamRequest,
    ErrorBody,
    ExportType,
    ImportKeyItem,
    ImportRequest,
    ContentTranslation,
    FormsTranslation,
    PluralFormsItem,
    SortParam,
    UpdateKeyRequest,
)
from locstore_client.types import File  # noqa: E402

client = AuthenticatedClient(base_url=base, token=token, prefix="", auth_header_name="X-Api-Token", raise_on_unexpected_status=True)


def check(condition, message):
    if not condition:
        raise SystemExit(f"client round trip: {message}")


response = create_team.sync_detailed(client=client, body=CreateTeamRequest(name="acme", display_name="Acme Inc."))
check(response.status_code == 201, f"createTeam answered {response.status_code}: {response.content!r}")
teams = list_teams.sync(client=client)
check([team.name for team in teams.data] == ["acme"], f"listTeams: {teams}")

project = CreateProjectRequest(name="mobile", display_name="Mobile", base_language_iso="en", languages_iso=["en", "fr", "pt-BR"])
check(create_project.sync_detailed("acme", client=client, body=project).status_code == 201, "createProject")
projects = list_projects.sync("acme", client=client)
check(projects.data[0].languages_iso == ["en", "fr", "pt-BR"], f"listProjects: {projects}")

for name, en, fr in [("home.title", "Welcome", "Bienvenue"), ("errors/network", "No network", "Pas de réseau"), ("Hello, %@!", "Hi %@!", "Salut %@ !")]:
    body = CreateKeyRequest(name=name, tags=["app"], translations=[ContentTranslation(language="en", content=en), ContentTranslation(language="fr", content=fr)])
    response = create_key.sync_detailed("acme", "mobile", client=client, body=body)
    check(response.status_code == 201, f"createKey {name}: {response.status_code} {response.content!r}")

imported = import_keys.sync("acme", "mobile", client=client, body=ImportRequest(keys=[ImportKeyItem(name=f"bulk.{i}") for i in range(5)]))
check(imported.created == 5, f"importKeys: {imported}")

update = UpdateKeyRequest(translations=[ContentTranslation(language="pt-BR", content="Sem rede")])
check(update_key.sync_detailed("acme", "mobile", "errors/network", client=client, body=update).status_code == 200, "updateKey with a / in the name")
key = get_key.sync("acme", "mobile", "errors/network", client=client)
check(key.data.translation.additional_properties == {"en": "No network", "fr": "Pas de réseau", "pt-BR": "Sem rede"}, f"getKey: {key}")

page = query_keys.sync_detailed("acme", "mobile", client=client, keyword="NETWORK", sort=SortParam.DESC, limit=10)
check(page.status_code == 200 and [item.name for item in page.parsed.data] == ["errors/network"], f"queryKeys: {page.content!r}")
check(page.headers["x-pagination-total-count"] == "1", f"pagination headers: {page.headers}")

plural = CreateKeyRequest(
    name="episodes",
    plural=True,
    description="Under a podcast's title",
    translations=[FormsTranslation(language="en", forms=PluralFormsItem(one="%d episode", other="%d episodes"))],
)
check(create_key.sync_detailed("acme", "mobile", client=client, body=plural).status_code == 201, "createKey of a plural key")
key = get_key.sync("acme", "mobile", "episodes", client=client)
forms = key.data.translation.additional_properties["en"]
check(key.data.plural and (forms.one, forms.other) == ("%d episode", "%d episodes"), f"getKey of a plural key: {key}")

csv_file = File(payload=io.BytesIO("key,fr\nepisodes,\"{count, plural, one {%d épisode} other {%d épisodes}}\"\n".encode()), mime_type="text/csv")
uploaded = upload_files.sync("acme", "mobile", client=client, type_=ExportType.CSV, body=csv_file)
check(not isinstance(uploaded, ErrorBody) and (uploaded.updated, uploaded.files[0].language) == (1, "fr"), f"uploadFiles: {uploaded}")
fr = get_key.sync("acme", "mobile", "episodes", client=client).data.translation.additional_properties["fr"]
check((fr.one, fr.other) == ("%d épisode", "%d épisodes"), f"the uploaded plural: {fr}")

missing = get_key.sync_detailed("acme", "mobile", "no such key", client=client)
check(missing.status_code == 404 and isinstance(missing.parsed, ErrorBody) and missing.parsed.error.code == "not_found", f"404: {missing.content!r}")

export = export_keys.sync("acme", "mobile", client=client, type_=ExportType.JSON, languages=["fr"])
with urllib.request.urlopen(export.data) as download:
    expected = {"Hello, %@!": "Salut %@ !", "episodes": {"one": "%d épisode", "other": "%d épisodes"}, "errors/network": "Pas de réseau", "home.title": "Bienvenue"}
    check(json.loads(download.read()) == expected, "the fr.json download")
export = export_keys.sync("acme", "mobile", client=client, type_=ExportType.ANDROID_XML)
with urllib.request.urlopen(export.data) as download:
    names = sorted(zipfile.ZipFile(io.BytesIO(download.read())).namelist())
check(names == ["values-fr/strings.xml", "values-pt-rBR/strings.xml", "values/strings.xml"], f"the android zip: {names}")
print("client round trip: every call answered as documented")
