"""A web handler in another language that opens a file, or fetches an address, named by the
request is stopped (path traversal, file inclusion, server-side request forgery); the same
handler with the name cut to its last part, or with its host written in the code, is not."""

from __future__ import annotations

import pytest

from humangr.contracts import ActionContext, Outcome, ToolCall
from humangr.engine.checks import run_checks
from humangr.engine.checks.request_files import input_fetched, input_opened
from humangr.engine.checks.request_input import input_names, name_pattern
from humangr.engine.review import local_outcome


def _write(path: str, content: str) -> ActionContext:
    call = ToolCall(
        name="write_file", arguments={"path": path, "content": content}, workspace="/srv/app"
    )
    return ActionContext(
        agent_id="a", action_type="tool_call", action_description="w", tool_call=call
    )


def _decide(path: str, content: str) -> tuple[Outcome, str]:
    outcome, reasons = local_outcome(run_checks(_write(path, content), local_only=True))
    return outcome, " ".join(reasons)


TRAVERSAL = {
    "php serves an upload by name": (
        "public/get.php",
        "<?php\n$name = $_GET['doc'];\nheader('Content-Type: application/pdf');\n"
        "readfile('/var/app/docs/' . $name);\n",
    ),
    "php includes the page asked for": (
        "web/index.php",
        "<?php\n$view = $_REQUEST['view'] ?? 'start';\nrequire_once 'views/' . $view . '.php';\n",
    ),
    "asp.net returns a file by query": (
        "Api/ReportsController.cs",
        "[ApiController]\npublic class ReportsController : ControllerBase {\n"
        '  [HttpGet("pdf")]\n  public IActionResult Get([FromQuery] string name) {\n'
        '    var full = Path.Combine("/data/reports", name);\n'
        '    return PhysicalFile(full, "application/pdf");\n  }\n}\n',
    ),
    "go serves a file by form value": (
        "cmd/files/main.go",
        "func download(w http.ResponseWriter, r *http.Request) {\n"
        '\tname := r.FormValue("f")\n\thttp.ServeFile(w, r, "/srv/share/"+name)\n}\n',
    ),
    "express sends the requested file": (
        "src/routes/assets.js",
        "router.get('/asset', (req, res) => {\n"
        "  res.sendFile(path.join(__dirname, 'assets', req.query.file));\n});\n",
    ),
    "node deletes what the body names": (
        "src/cleanup.ts",
        "app.post('/cleanup', async (req, res) => {\n  const target = req.body.path;\n"
        "  await fs.promises.unlink(target);\n  res.sendStatus(204);\n});\n",
    ),
    "spring reads a template by parameter": (
        "src/main/java/app/TemplateController.java",
        '@RestController\nclass TemplateController {\n  @GetMapping("/tpl")\n'
        "  String tpl(@RequestParam String name) throws IOException {\n"
        '    return new String(Files.readAllBytes(Paths.get("/opt/tpl/" + name)));\n  }\n}\n',
    ),
}

FORGERY = {
    "go proxies any url": (
        "internal/preview/handler.go",
        "func preview(w http.ResponseWriter, r *http.Request) {\n"
        '\tsrc := r.URL.Query().Get("src")\n\tresp, err := http.Get(src)\n'
        "\tif err != nil { return }\n\tdefer resp.Body.Close()\n\tio.Copy(w, resp.Body)\n}\n",
    ),
    "express fetches the callback it is given": (
        "src/webhooks/test.js",
        "app.post('/hooks/test', async (req, res) => {\n"
        "  const r = await fetch(req.body.callbackUrl, { method: 'POST' });\n"
        "  res.json({ status: r.status });\n});\n",
    ),
    "php fetches a feed url": (
        "feeds/import.php",
        "<?php\n$feed = $_POST['feed_url'];\n$xml = file_get_contents($feed);\necho $xml;\n",
    ),
    "asp.net downloads an image by query": (
        "Controllers/ImageController.cs",
        "public class ImageController : ControllerBase {\n"
        "  [HttpGet] public async Task<IActionResult> Get([FromQuery] string url) {\n"
        "    var bytes = await _http.GetByteArrayAsync(url);\n"
        '    return File(bytes, "image/png");\n  }\n}\n',
    ),
    "java opens a stream to the url parameter": (
        "src/main/java/app/PreviewServlet.java",
        "public class PreviewServlet extends HttpServlet {\n"
        "  protected void doGet(HttpServletRequest req, HttpServletResponse resp)\n"
        "      throws IOException {\n"
        '    String link = req.getParameter("link");\n'
        "    try (InputStream in = new URL(link).openStream()) {\n"
        "      in.transferTo(resp.getOutputStream());\n    }\n"
        "  }\n}\n",
    ),
}

EVERYDAY = {
    "php serves the base name only": (
        "public/get.php",
        "<?php\n$name = basename($_GET['doc']);\nreadfile('/var/app/docs/' . $name);\n",
    ),
    "go serves a fixed file": (
        "cmd/web/main.go",
        "func index(w http.ResponseWriter, r *http.Request) {\n"
        '\tlog.Println(r.URL.Query().Get("ref"))\n'
        '\thttp.ServeFile(w, r, "./static/index.html")\n}\n',
    ),
    "express fetches its own api with an id": (
        "src/routes/orders.js",
        "router.get('/orders/:id', async (req, res) => {\n"
        "  const r = await fetch(`https://api.shop.example/v2/orders/${req.params.id}`);\n"
        "  res.json(await r.json());\n});\n",
    ),
    "node calls a configured base": (
        "src/routes/users.ts",
        "const API_BASE = process.env.API_BASE;\n"
        "router.get('/users/:id', async (req, res) => {\n"
        "  const url = `${API_BASE}/users/${req.params.id}`;\n"
        "  const r = await axios.get(url);\n  res.json(r.data);\n});\n",
    ),
    "asp.net reads a fixed settings file": (
        "Controllers/HealthController.cs",
        "public class HealthController : ControllerBase {\n"
        "  [HttpGet] public IActionResult Get([FromQuery] string verbose) {\n"
        '    var text = File.ReadAllText("appsettings.json");\n'
        '    return Ok(verbose == "1" ? text : "ok");\n  }\n}\n',
    ),
}


@pytest.mark.parametrize(("path", "content"), TRAVERSAL.values(), ids=list(TRAVERSAL))
def test_a_file_named_by_the_request_is_stopped(path: str, content: str) -> None:
    outcome, reasons = _decide(path, content)
    assert outcome is not Outcome.APPROVED
    assert "path traversal" in reasons


@pytest.mark.parametrize(("path", "content"), FORGERY.values(), ids=list(FORGERY))
def test_an_address_named_by_the_request_is_stopped(path: str, content: str) -> None:
    outcome, reasons = _decide(path, content)
    assert outcome is not Outcome.APPROVED
    assert "server-side request forgery" in reasons


@pytest.mark.parametrize(("path", "content"), EVERYDAY.values(), ids=list(EVERYDAY))
def test_everyday_handlers_are_approved(path: str, content: str) -> None:
    assert _decide(path, content) == (Outcome.APPROVED, "")


def test_only_the_calls_own_arguments_are_read() -> None:
    text = "$who = $_GET['who'];\nreadfile('/srv/motd.txt');\necho htmlspecialchars($who);\n"
    assert input_opened(text, name_pattern(input_names(text))) is None
    spread = "$f = $_GET['f'];\nreadfile(\n  '/srv/files/'\n  . $f\n);\n"
    assert input_opened(spread, name_pattern(input_names(spread))) == spread.index("readfile")


def test_every_call_is_read_however_many_come_first() -> None:
    many = "readfile('/a');\n" * 20_000 + "readfile($_GET['f']);\n"
    assert input_opened(many, None) == many.rindex("readfile")
    urls = "fetch('/x');\n" * 20_000 + "fetch(req.query.u);\n"
    assert input_fetched(urls, None) == urls.rindex("fetch")


def test_an_argument_is_read_within_bounds() -> None:
    text = "fetch(" + "(" * 50_000 + "req.query.u"
    assert input_fetched(text, None) is None  # past the bounded argument window
