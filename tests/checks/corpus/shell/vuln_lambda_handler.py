import os


def lambda_handler(event, context):
    name = event["queryStringParameters"]["name"]
    os.system(f"echo {name} >> /tmp/visitors")
    return {"statusCode": 200}
