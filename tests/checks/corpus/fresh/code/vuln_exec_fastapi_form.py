from fastapi import FastAPI, Form

app = FastAPI()


@app.post("/macro")
def macro(source: str = Form(...), name: str = Form("macro")):
    wrapped = "def {}():\n    {}\n".format(name, source.replace("\n", "\n    "))
    namespace = {}
    exec(wrapped, namespace)
    return {"defined": name in namespace}
